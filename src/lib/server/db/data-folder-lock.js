// @ts-check
// One process per embedded data folder (docs/operating.md, "One server per folder"): PGlite writes a
// postmaster.pid with the fixed pid -42, so two servers on one folder would both run and wreck it.
// This lock holds the real process id and its start time; plain JavaScript, so that the db:* scripts
// take the same lock as the server.
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'portal.lock';

export class DataFolderHeldError extends Error {
	/** @param {string} folder @param {number} pid */
	constructor(folder, pid) {
		super(`The data folder ${folder} is in use by process ${pid}; stop that process first (one server per folder).`);
		this.name = 'DataFolderHeldError';
		this.folder = folder;
		this.pid = pid;
	}
}

/** The start time of a process in clock ticks since boot (Linux); null where /proc does not say. @param {number} pid */
function startTimeOf(pid) {
	try {
		// Field 22 of /proc/<pid>/stat, counted after the command name (which may hold spaces).
		// Joined at run time: Vercel's file tracer would otherwise evaluate the path with its own pid and fail the build.
		const stat = readFileSync(['', 'proc', String(pid), 'stat'].join('/'), 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
	} catch {
		return null;
	}
}

/** Whether the process a lock names is still the one that wrote it. @param {{ pid: number, started: string | null }} holder */
function isAlive({ pid, started }) {
	if (pid === process.pid) return false; // our own pid from an earlier life (a container restarts as pid 1)
	try {
		process.kill(pid, 0);
	} catch (err) {
		if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EPERM') return false;
	}
	// A reused pid belongs to a process started at another time.
	const now = startTimeOf(pid);
	return !(started && now && started !== now);
}

/** @param {string} file @returns {{ pid: number, started: string | null } | null} */
function readHolder(file) {
	try {
		const [pid, started] = readFileSync(file, 'utf8').trim().split(/\s+/);
		return Number.isSafeInteger(Number(pid)) ? { pid: Number(pid), started: started || null } : null;
	} catch {
		return null;
	}
}

/**
 * The process id holding `folder`, or null when no live process does.
 * @param {string} folder
 */
export function holderOf(folder) {
	const holder = readHolder(path.join(folder, LOCK_FILE));
	return holder && isAlive(holder) ? holder.pid : null;
}

/**
 * Takes `folder` for this process (creating the folder) until `release()` or the process ends; throws
 * DataFolderHeldError, writing nothing, when a live process holds it. A lock of a dead process is taken
 * over (`onTakeover` is told whose). A failure (no space, no permission) leaves no file behind.
 * @param {string} folder
 * @param {{ onTakeover?: (pid: number) => void }} [options]
 * @returns {{ release(): void }}
 */
export function lockDataFolder(folder, { onTakeover } = {}) {
	const file = path.join(folder, LOCK_FILE);
	const held = holderOf(folder);
	if (held !== null) throw new DataFolderHeldError(folder, held);
	mkdirSync(folder, { recursive: true, mode: 0o700 });
	const mine = `${process.pid} ${startTimeOf(process.pid) ?? ''}\n`;
	const temporary = `${file}.${process.pid}`;
	try {
		try {
			writeFileSync(temporary, mine, { mode: 0o600 });
		} catch (err) {
			// A write that fails (no space) names no file: this folder is where it failed.
			const e = /** @type {NodeJS.ErrnoException} */ (err);
			if (e && typeof e === 'object' && !e.path) e.path = folder;
			throw err;
		}
		for (let attempt = 0; ; attempt++) {
			try {
				// link() fails when the lock exists: of two processes starting at once, one wins.
				linkSync(temporary, file);
				break;
			} catch (err) {
				if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST' || attempt > 2) throw err;
				const other = holderOf(folder);
				if (other !== null) throw new DataFolderHeldError(folder, other);
				const dead = readHolder(file);
				rmSync(file, { force: true }); // a dead process's lock
				if (dead) onTakeover?.(dead.pid);
			}
		}
	} finally {
		rmSync(temporary, { force: true });
	}
	const release = () => {
		if (existsSync(file) && readFileSync(file, 'utf8') === mine) unlinkSync(file);
		process.off('exit', release);
	};
	process.on('exit', release);
	return { release };
}
