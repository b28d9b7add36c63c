// @ts-check
// The local launcher behind `npm start`: builds only when build/ is older than the sources (into a new
// folder, switched in once complete: scripts/build.js), fills local defaults, creates the embedded
// database's data folder on a first start, then starts the built server in this same process
// (package.json runs it with --optimize-for-size: bench/history/2026-11-22-embedded-default-rss.md,
// "Embedded default RSS").
// The server itself never invents a secret; this launcher keeps one generated secret in the data folder.
import { spawnSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serverSettingsProblems } from '../deploy/server.js';
import { fileErrorInWords, logLine, startFailed } from '../deploy/start-up.js';
import { DataFolderHeldError, holderOf } from '../src/lib/server/db/data-folder-lock.js';
import { isBuildCurrent } from './build-state.js';
import { embeddedFolder, loadDotEnv, portalDataDir } from './portal-env.js';

// Settings from ./.env when present; a variable set in the environment wins, an empty one is unset (docs/operating.md).
loadDotEnv();
const dotEnv = statSync('.env', { throwIfNoEntry: false });
if (dotEnv && dotEnv.mode & 0o077)
	logLine(
		'warn',
		`.env holds secrets and is readable by other users of this machine (mode ${(dotEnv.mode & 0o777).toString(8)}): chmod 600 .env`
	);

const env = process.env;
env.PORT ??= '3000';
env.HOST ??= 'localhost';
const problems = serverSettingsProblems(env);
if (problems.length) startFailed(`Invalid configuration: ${problems.join('; ')}`);
env.ORIGIN ??= `http://localhost:${env.PORT}`;
env.SIWE_ALLOWED_DOMAINS ??= `localhost:${env.PORT}`;
if (!env.DATABASE_URL) env.PGLITE_DATA_DIR = /** @type {string} */ (embeddedFolder());
const pgliteDir = env.DATABASE_URL ? undefined : env.PGLITE_DATA_DIR;
const inFolder = pgliteDir !== undefined && !pgliteDir.startsWith('memory://');

// A server already on the folder: said before a build that would be for nothing.
const holder = inFolder ? holderOf(/** @type {string} */ (pgliteDir)) : null;
if (holder !== null) startFailed(new DataFolderHeldError(/** @type {string} */ (pgliteDir), holder).message);

if (!isBuildCurrent()) {
	// In a child process, so that the build's memory is not the server's; a running server keeps its own build.
	const build = spawnSync(process.execPath, [path.resolve('scripts/build.js'), '--for-start'], { stdio: 'inherit' });
	if (build.status !== 0) process.exit(build.status ?? 1);
}

try {
	const dataDir = portalDataDir();
	mkdirSync(dataDir, { recursive: true, mode: 0o700 });

	// In a child process that exits first: PGlite's initdb needs about 700 MiB, the server under 300.
	if (inFolder && !existsSync(path.join(/** @type {string} */ (pgliteDir), 'PG_VERSION'))) {
		logLine('info', `Creating the embedded database in ${pgliteDir} (once)`, { dataFolder: pgliteDir });
		const created = spawnSync(process.execPath, [path.resolve('scripts/create-pglite.js'), String(pgliteDir)], {
			stdio: 'inherit'
		});
		if (created.status !== 0) process.exit(created.status ?? 1);
	}

	if (!env.SESSION_PASSWORD) {
		const file = path.join(dataDir, 'session-password');
		if (!existsSync(file)) {
			writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
		}
		chmodSync(file, 0o600);
		env.SESSION_PASSWORD = readFileSync(file, 'utf8').trim();
	}

	// Web Push (docs/notifications.md): a VAPID key pair made once, like the session password, unless set.
	if (!env.VAPID_PUBLIC_KEY && !env.VAPID_PRIVATE_KEY) {
		const file = path.join(dataDir, 'vapid-keys.json');
		if (!existsSync(file)) {
			const ecdh = createECDH('prime256v1');
			ecdh.generateKeys();
			const keys = {
				publicKey: ecdh.getPublicKey().toString('base64url'),
				privateKey: ecdh.getPrivateKey().toString('hex').padStart(64, '0')
			};
			keys.privateKey = Buffer.from(keys.privateKey, 'hex').toString('base64url');
			writeFileSync(file, JSON.stringify(keys) + '\n', { mode: 0o600, flag: 'wx' });
		}
		chmodSync(file, 0o600);
		/** @type {unknown} */
		const stored = JSON.parse(readFileSync(file, 'utf8'));
		const keys = /** @type {{ publicKey: string, privateKey: string }} */ (stored);
		env.VAPID_PUBLIC_KEY = keys.publicKey;
		env.VAPID_PRIVATE_KEY = keys.privateKey;
	}
} catch (err) {
	const words = fileErrorInWords(err);
	if (!words) throw err;
	startFailed(`Cannot start: ${words}.`);
}

logLine('info', `Member portal: ${env.ORIGIN}`, { url: env.ORIGIN });
if (!env.ADMIN_ADDRESSES?.trim())
	logLine(
		'info',
		'No admin yet: put your wallet address in ADMIN_ADDRESSES (in .env, see .env.example), restart, and sign in with that wallet.'
	);
await import(path.resolve('build/index.js'));
