import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { schemaHash } from './schema-hash.js';

// No digits: the server rates SESSION_PASSWORD with zxcvbn as it starts, and its l33t matcher tries every
// reading of each digit as a letter. 'test-session-password-0123456789-abcdef' took 0.4-0.7 s of the
// check, this one 0.02-0.1 s, on every test server's start (bench/README.md, CI time).
export const TEST_SESSION_PASSWORD = 'test-session-password-hKqzVwPmRtXbJy-abcdef';

export interface RunningServer {
	url: string;
	port: number;
	process: ChildProcess;
	output(): string;
	stop(): Promise<void>;
	/** Resolves with the exit code once the process ends. */
	exited: Promise<number | null>;
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
		});
	});
}

/**
 * The environment a test server needs, on PGlite in memory unless DATABASE_URL is given; without the
 * daily backups (on a Postgres server they would go to the working folder): a test of them sets BACKUP_KEEP.
 */
export function baseEnv(port: number, overrides: Record<string, string | undefined> = {}) {
	return {
		PORT: String(port),
		HOST: '127.0.0.1',
		ORIGIN: `http://127.0.0.1:${port}`,
		SESSION_PASSWORD: TEST_SESSION_PASSWORD,
		SIWE_ALLOWED_DOMAINS: `127.0.0.1:${port}`,
		PGLITE_DATA_DIR: 'memory://',
		BACKUP_KEEP: '0',
		...overrides
	};
}

/**
 * The servers this process started and has not seen end: killed when the process exits, so a test whose
 * hooks timed out (a loaded machine) leaves no server behind to load the rest of the run. The data
 * folders copied for them go too.
 */
const running = new Set<ChildProcess>();
const copiedFolders = new Set<string>();
process.once('exit', () => {
	for (const child of running) child.kill('SIGKILL');
	for (const folder of copiedFolders) rmSync(folder, { recursive: true, force: true });
});

let migratedFolder: Promise<string> | null = null;

/**
 * A PGlite data folder migrated by the built server itself, made once for the current migrations (named
 * by their hash, as the dump of tests/helpers/pglite-template.ts is) and copied for each server started
 * without a database of its own. Migrate once and copy: a server on an empty in-memory database runs
 * initdb and every migration in WebAssembly as it starts (5 to 6 s of CPU), on a copy it opens the folder
 * (about 2 s). Two processes making it at once each make their own and the first rename wins.
 */
export function migratedDataFolder(): Promise<string> {
	migratedFolder ??= (async () => {
		const folder = path.join(tmpdir(), 'portal-test-templates', `pglite-folder-${schemaHash()}`);
		if (existsSync(folder)) return folder;
		mkdirSync(path.dirname(folder), { recursive: true });
		const partial = `${folder}.${process.pid}.partial`;
		rmSync(partial, { recursive: true, force: true });
		const server = await startServer({ env: { PGLITE_DATA_DIR: partial } });
		await server.stop();
		if (server.process.exitCode !== 0)
			throw new Error(`the migrated data folder could not be made:\n${server.output()}`);
		try {
			renameSync(partial, folder);
		} catch (err) {
			rmSync(partial, { recursive: true, force: true });
			if (!existsSync(folder)) throw err;
		}
		return folder;
	})().catch((err: unknown) => {
		migratedFolder = null;
		throw err;
	});
	return migratedFolder;
}

/**
 * Starts the built server (`node build/index.js`, or another entry) with exactly `env` plus PATH,
 * and waits until it listens or exits.
 */
export async function startServer(
	options: { env?: Record<string, string | undefined>; entry?: string; port?: number; cwd?: string; uid?: number } = {},
	attempt = 1
): Promise<RunningServer> {
	const port = options.port ?? (await freePort());
	const env: Record<string, string | undefined> = { PATH: process.env.PATH, ...baseEnv(port), ...options.env };
	// On PGlite without a folder of its own: a copy of the migrated one (a server run as another user keeps
	// the in-memory database, which needs no folder it may write).
	let copied: string | undefined;
	if (env.PGLITE_DATA_DIR === 'memory://' && !env.DATABASE_URL && options.uid === undefined) {
		const template = await migratedDataFolder();
		copied = mkdtempSync(path.join(tmpdir(), 'portal-server-'));
		copiedFolders.add(copied);
		cpSync(template, copied, { recursive: true });
		env.PGLITE_DATA_DIR = copied;
	}
	const removeCopy = () => {
		if (!copied) return;
		rmSync(copied, { recursive: true, force: true });
		copiedFolders.delete(copied);
	};
	for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
	const child = spawn(process.execPath, [options.entry ?? 'build/index.js'], {
		cwd: options.cwd ?? path.resolve('.'),
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		// Another user than the test's (a service user): its own group too.
		...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid })
	});
	running.add(child);
	child.once('exit', () => {
		running.delete(child);
		removeCopy();
	});
	let output = '';
	child.stdout.on('data', (chunk) => (output += chunk));
	child.stderr.on('data', (chunk) => (output += chunk));
	// 'close', not 'exit': 'exit' can come before the last lines in the pipes are read, and a test that
	// reads the output once the server has gone (the one fatal line at start) found it missing.
	const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 180_000);
		// Only until it listens: the output keeps growing with the server's request lines (a batch every 250 ms
		// under traffic), and scanning all of it on each batch grew with the square of the requests: 41 s of
		// CPU in the test's own process for 10,000 batches (bench/README.md, CI time).
		const started = () => {
			clearTimeout(timer);
			child.stdout.off('data', check);
			resolve();
		};
		const check = () => {
			if (/Listening on/.test(output)) started();
		};
		child.stdout.on('data', check);
		void exited.then(started);
	});
	// freePort's port is free when it answers, not when the server binds it a second or two later: another
	// worker's freePort may be given it in between (a server that did not start in CI, its retry passing).
	// A port of our choosing that was taken is chosen again; one the caller named is the caller's failure.
	if (
		child.exitCode !== null &&
		options.port === undefined &&
		attempt < 3 &&
		/another process is using it/.test(output)
	)
		return startServer(options, attempt + 1);

	return {
		url: `http://127.0.0.1:${port}`,
		port,
		process: child,
		output: () => output,
		exited,
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				// A PGlite server flushes its folder as it stops, which can take seconds on loaded cores: give it
				// time, and when it is killed after all, wait until it is gone. Resolving earlier let a caller open
				// the same folder while the old process was still writing it (own-database.ts lost an update so).
				let timer: NodeJS.Timeout | undefined;
				await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
				clearTimeout(timer);
				if (child.exitCode === null && child.signalCode === null) {
					child.kill('SIGKILL');
					await exited;
				}
			}
		}
	};
}

/**
 * The request lines `server` logged for requests whose id contains `id`, without their time and duration:
 * lines are written in batches at least every quarter of a second, so this waits 600 ms first.
 */
export async function requestLinesOf(
	server: Pick<RunningServer, 'output'>,
	id: string
): Promise<Record<string, unknown>[]> {
	await new Promise((resolve) => setTimeout(resolve, 600));
	return server
		.output()
		.split('\n')
		.filter((line) => line.includes(id))
		.map((line) => {
			const { time: _time, durationMs: _ms, ...rest } = JSON.parse(line) as Record<string, unknown>;
			return rest;
		});
}
