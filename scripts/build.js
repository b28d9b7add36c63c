// @ts-check
// `npm run build` (and `npm start` when the build is stale): builds the portal into a new folder under
// .builds/ and points the `build` link at it only once it is complete, so that a server running the
// previous build keeps every file it loads or has handed out (docs/operating.md, "Upgrades";
// docs/decisions/0047-builds-that-never-change-under-a-server.md). Each build carries its own copy of
// the packages it runs with (hard links into node_modules/) and of the migrations, so neither `git
// pull` nor `npm ci` changes what a running server reads. On Vercel (or ADAPTER=vercel) it is `vite build`.
import { spawn } from 'node:child_process';
import {
	closeSync,
	copyFileSync,
	cpSync,
	existsSync,
	linkSync,
	lstatSync,
	mkdirSync,
	openSync,
	readFileSync,
	readdirSync,
	readlinkSync,
	renameSync,
	rmSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
	writeSync
} from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { portalVersion } from './portal-version.js';

export const BUILDS_DIR = '.builds';
export const BUILD_LINK = 'build';
/** The current build and the two before it: a server not yet restarted after two upgrades still has its files. */
export const BUILDS_KEPT = 3;
const LOCK = '.lock';

/** @param {string} file @returns {unknown} */
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** @typedef {Record<string, { version?: string, optional?: boolean, devOptional?: boolean, dev?: boolean, link?: boolean }>} LockPackages */
/** The `packages` of a lockfile (package-lock.json, node_modules/.package-lock.json). @param {string} file */
const lockPackages = (file) => /** @type {{ packages: LockPackages }} */ (readJson(file)).packages;

/**
 * Why node_modules/ does not hold what package-lock.json says (npm ci was not run after the lockfile
 * changed), or null. npm keeps what it installed in node_modules/.package-lock.json.
 * @param {string} root
 */
export function lockfileProblem(root) {
	const installedFile = path.join(root, 'node_modules', '.package-lock.json');
	if (!existsSync(installedFile)) return 'node_modules/ is missing or was not installed by npm: run npm ci';
	const wanted = lockPackages(path.join(root, 'package-lock.json'));
	const installed = lockPackages(installedFile);
	for (const [key, entry] of Object.entries(wanted)) {
		if (key === '') continue;
		const have = installed[key];
		// Optional packages of other platforms are never installed.
		if (!have ? !entry.optional && !entry.devOptional : have.version !== entry.version)
			return `package-lock.json changed since npm ci last ran (${key.replace(/^.*node_modules\//, '')}): run npm ci`;
	}
	for (const key of Object.keys(installed))
		if (!(key in wanted)) return `node_modules/ holds a package package-lock.json does not: run npm ci`;
	return null;
}

/**
 * The top-level folders under node_modules/ of the packages the server may load: every package of
 * the lockfile that is not only for development.
 * @param {string} root
 */
export function runtimePackages(root) {
	const packages = lockPackages(path.join(root, 'package-lock.json'));
	return Object.entries(packages)
		.filter(([key, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(key) && !entry.dev && !entry.link)
		.map(([key]) => key)
		.filter((key) => existsSync(path.join(root, key)));
}

/**
 * Copies a tree as hard links (a copy where the file system refuses links): npm ci later replaces the
 * files under node_modules/, and these links keep the ones the build was made with.
 * @param {string} from
 * @param {string} to
 */
export function linkTree(from, to) {
	mkdirSync(to, { recursive: true });
	for (const entry of readdirSync(from, { withFileTypes: true })) {
		const source = path.join(from, entry.name);
		const target = path.join(to, entry.name);
		if (entry.isDirectory()) linkTree(source, target);
		else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
		else
			try {
				linkSync(source, target);
			} catch {
				copyFileSync(source, target);
			}
	}
}

/** The build `build` points at now (its folder name under .builds/), or null. @param {string} root */
export function currentBuild(root) {
	try {
		const target = readlinkSync(path.join(root, BUILD_LINK));
		return path.basename(target);
	} catch {
		return null;
	}
}

/**
 * Points `build` at `.builds/<id>` in one rename, so that it names either the old build or the new one.
 * A `build` folder of an older version (before builds had folders of their own) is moved under .builds/.
 * @param {string} root
 * @param {string} id
 */
export function switchBuild(root, id) {
	const link = path.join(root, BUILD_LINK);
	const stat = lstatSync(link, { throwIfNoEntry: false });
	if (stat && !stat.isSymbolicLink()) renameSync(link, path.join(root, BUILDS_DIR, `${id}-replaced-folder`));
	const temporary = `${link}.switch-${process.pid}`;
	rmSync(temporary, { force: true });
	symlinkSync(path.join(BUILDS_DIR, id), temporary);
	renameSync(temporary, link);
}

/**
 * Removes the builds older than the newest `kept` complete ones, never the current one; also what a
 * build that did not finish left.
 * @param {string} root
 * @param {number} [kept]
 */
export function pruneBuilds(root, kept = BUILDS_KEPT) {
	const dir = path.join(root, BUILDS_DIR);
	const current = currentBuild(root);
	const names = readdirSync(dir).filter((name) => name !== LOCK && name !== current);
	const complete = names.filter((name) => existsSync(path.join(dir, name, 'BUILD.json'))).sort();
	const keep = new Set(complete.slice(-(kept - 1)));
	for (const name of names) if (!keep.has(name)) rmSync(path.join(dir, name), { recursive: true, force: true });
}

/** Whether process `pid` runs (EPERM: it does, as another user). @param {number} pid */
function isAlive(pid) {
	if (!Number.isSafeInteger(pid) || pid <= 0) return false;
	try {
		return process.kill(pid, 0);
	} catch (err) {
		return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
	}
}

/**
 * One build at a time in a working folder: a lock file holding this process's id, taken over from a
 * process that is gone.
 * @param {string} root
 */
function lockBuilds(root) {
	const file = path.join(root, BUILDS_DIR, LOCK);
	mkdirSync(path.dirname(file), { recursive: true });
	for (let attempt = 0; ; attempt++) {
		try {
			const fd = openSync(file, 'wx');
			writeSync(fd, `${process.pid}\n`);
			closeSync(fd);
			break;
		} catch (err) {
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST' || attempt > 2) throw err;
			const pid = Number(readFileSync(file, 'utf8').trim());
			if (isAlive(pid))
				throw new Error(`another build (process ${pid}) is running in ${root}; wait for it to finish`, { cause: err });
			rmSync(file, { force: true });
		}
	}
	const release = () => rmSync(file, { force: true });
	process.once('exit', release);
	return release;
}

/** `20261202T101500Z-3f9a`: sorts by time. */
const newBuildId = () =>
	`${new Date()
		.toISOString()
		.replace(/[-:]/g, '')
		.replace(/\.\d+Z$/, 'Z')}-${process.pid.toString(16)}`;

/**
 * SvelteKit's build says "Run npm run preview to preview your production build locally", which is not
 * how this portal is served: the line is left out, and the right next step is said once the build is in place.
 */
const PREVIEW_LINE = /Run .*npm run preview.* to preview your production build locally\./;

/**
 * `vite build` in a child process, its output passed on without SvelteKit's preview line.
 * @param {string} root
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<number>} its exit status
 */
function viteBuild(root, env) {
	const child = spawn(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build'], {
		cwd: root,
		env,
		stdio: ['ignore', 'pipe', 'inherit']
	});
	const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) });
	lines.on('line', (line) => PREVIEW_LINE.test(line) || console.log(line));
	return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** As svelte.config.js decides: adapter-vercel on Vercel's build machines or with ADAPTER=vercel. */
const buildsForVercel = (/** @type {NodeJS.ProcessEnv} */ env) =>
	env.ADAPTER === 'vercel' || Boolean(env.VERCEL && env.ADAPTER !== 'node');

/** What to do once the build is in place, as `npm run build` says it. */
export const RESTART_STEP =
	'Restart the portal to serve it (stop npm start and run it again, or: sudo systemctl restart member-portal); until then the running portal serves the build it started with.';

/**
 * Builds into .builds/<id>/ and switches `build` to it. Returns the exit status (0: switched).
 * @param {string} [root]
 * @param {string} [nextStep] said once the build is in place
 */
export async function buildPortal(root = process.cwd(), nextStep = RESTART_STEP) {
	if (buildsForVercel(process.env)) return viteBuild(root, process.env);
	const problem = lockfileProblem(root);
	if (problem) {
		console.error(`Cannot build: ${problem}.`);
		return 1;
	}
	const release = lockBuilds(root);
	const id = newBuildId();
	const dir = path.join(root, BUILDS_DIR, id);
	const started = new Date();
	try {
		const status = await viteBuild(root, { ...process.env, PORTAL_BUILD_OUT: dir });
		if (status !== 0) {
			rmSync(dir, { recursive: true, force: true });
			return status;
		}
		// What the server reads at run time besides its own code, as the build was made with them.
		cpSync(path.join(root, 'drizzle'), path.join(dir, 'drizzle'), { recursive: true });
		for (const key of runtimePackages(root)) linkTree(path.join(root, key), path.join(dir, key));
		writeFileSync(
			path.join(dir, 'BUILD.json'),
			JSON.stringify({ version: portalVersion(root), builtAt: started.toISOString() }, null, '\t') + '\n'
		);
		// The build is as new as the sources it read: a file saved while it ran makes it stale (scripts/build-state.js).
		utimesSync(path.join(dir, 'index.js'), started, started);
		switchBuild(root, id);
		pruneBuilds(root);
		console.log(`\nBuilt ${path.join(BUILDS_DIR, id)}; ${BUILD_LINK}/ points at it now. ${nextStep}`);
		return 0;
	} catch (err) {
		rmSync(dir, { recursive: true, force: true });
		throw err;
	} finally {
		release();
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	// `npm start` builds a stale build this way, then starts it.
	buildPortal(process.cwd(), process.argv.includes('--for-start') ? 'Starting it.' : RESTART_STEP).then(
		(status) => (process.exitCode = status),
		(/** @type {unknown} */ err) => {
			console.error(`The build failed: ${err instanceof Error ? err.message : String(err)}`);
			process.exitCode = 1;
		}
	);
}
