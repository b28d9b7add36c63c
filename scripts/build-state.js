// @ts-check
// Whether build/ was made from the sources as they are now: `npm start` rebuilds only when it was
// not, and the HTTP tests refuse to run against a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What `vite build` reads: a change to any of these makes the build stale. */
export const BUILD_INPUTS = [
	'src',
	'static',
	'drizzle',
	// The translations; src/lib/paraglide is compiled from them (by every vite and vitest start), so not an input.
	'messages',
	'project.inlang/settings.json',
	'svelte.config.js',
	'vite.config.ts',
	'package-lock.json',
	// The adapter wrapper, the Node server it installs as build/index.js and the headers they send.
	'deploy/adapter.js',
	'deploy/server.js',
	'deploy/node-answers.js',
	'deploy/security-headers.js'
];
export const BUILD_OUTPUT = 'build/index.js';

/** Generated from other inputs whenever vite or vitest starts. */
const DERIVED = new Set([path.join('src', 'lib', 'paraglide')]);

/** @param {string} p @returns {number} the newest modification time under `p` (0 if absent) */
function newestMtime(p) {
	if (!existsSync(p) || [...DERIVED].some((derived) => p.endsWith(derived))) return 0;
	const stat = statSync(p);
	if (!stat.isDirectory()) return stat.mtimeMs;
	let newest = stat.mtimeMs;
	for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
	return newest;
}

/**
 * True when build/ (or another build's `outputFile`) exists and is newer than every build input.
 * @param {string} [root]
 * @param {string} [outputFile] relative to root
 */
export function isBuildCurrent(root = process.cwd(), outputFile = BUILD_OUTPUT) {
	const output = path.join(root, outputFile);
	if (!existsSync(output)) return false;
	const built = statSync(output).mtimeMs;
	return BUILD_INPUTS.every((input) => newestMtime(path.join(root, input)) <= built);
}
