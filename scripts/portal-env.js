// @ts-check
// What `npm start` and the db:* scripts read alike: `.env` in the working folder (variables already in
// the environment win) and where the embedded database lives.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { unsetEmptyVariables } from '../deploy/start-up.js';

/**
 * Loads ./.env when present (Node's own parser): a variable already in the environment wins, and an
 * empty value, in the file (a line of .env.example copied as is, `ORIGIN=`) or in the environment,
 * leaves the variable unset, so defaults apply.
 */
export function loadDotEnv(file = '.env') {
	unsetEmptyVariables();
	if (!existsSync(file)) return;
	for (const [name, value] of Object.entries(parseEnv(readFileSync(file, 'utf8'))))
		if (process.env[name] === undefined && value !== '') process.env[name] = value;
}

/** The folder for the launcher's own files (the generated session password): PORTAL_DATA_DIR or .data. */
export const portalDataDir = () => path.resolve(process.env.PORTAL_DATA_DIR || '.data');

/** The embedded database's folder, as `npm start` chooses it, or null when DATABASE_URL names a server. */
export function embeddedFolder() {
	if (process.env.DATABASE_URL) return null;
	if (process.env.PGLITE_DATA_DIR?.startsWith('memory://')) return process.env.PGLITE_DATA_DIR;
	return path.resolve(process.env.PGLITE_DATA_DIR || path.join(portalDataDir(), 'pglite'));
}

const S3_VARIABLES = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];

/**
 * FILES_DIR as the server chooses it (src/lib/server/platform/config.ts filesOf): FILES_DIR, or
 * <StateDirectory>/files under systemd, else <PORTAL_DATA_DIR>/files; null when the files are in S3
 * (the bucket keeps them; backups do not carry them).
 */
export function filesFolder() {
	if (S3_VARIABLES.every((name) => process.env[name])) return null;
	const state = process.env.STATE_DIRECTORY?.split(':')[0];
	return path.resolve(
		process.env.FILES_DIR || (state ? path.join(state, 'files') : path.join(portalDataDir(), 'files'))
	);
}
