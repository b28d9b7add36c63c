// @ts-check
// One process per embedded data folder (docs/operating.md, "One server per folder"): PGlite writes a
// postmaster.pid with the fixed pid -42, so two servers on one folder would both run and wreck it.
// This lock holds the real process id and its start time; plain JavaScript, so that the db:* scripts
// take the same lock as the server.
import {
	chmodSync,
	existsSync,
	linkSync,
	mkdirSync,
	readFileSync,
	rmSync,
	statSync,
	unlinkSync,
	writeFileSync
} from 'node:fs';
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

export class DataFolderOpenError extends Error {
	/** @param {string} folder @param {number} mode */
	constructor(folder, mode) {
		super(
			`The data folder ${folder} can be read or written by other users (mode ${mode.toString(8)}) and its mode cannot be changed by this user: run chmod 700 ${folder} as its owner, or choose another folder.`
		);
		this.name = 'DataFolderOpenError';
		this.folder = folder;
	}
}

/**
 * Makes `folder` its owner's alone (0700) when its group or others may read, write or enter it: the
 * database files inside (PGlite writes them 0666) are then out of their reach. Returns the mode it had
 * when it changed it, null when it was already closed; throws DataFolderOpenError when it cannot.
 * @param {string} folder
 * @returns {number | null}
 */
export function closeDataFolder(folder) {
	const mode = statSync(folder).mode & 0o777;
	if ((mode & 0o077) === 0) return null;
	try {
		chmodSync(folder, 0o700);
	} catch {
		throw new DataFolderOpenError(folder, mode);
	}
	return mode;
}

/**
 * Takes `folder` for this process (creating the folder, 0700; an existing one others may open is made
 * 0700, and `onModeFixed` told its old mode) until `release()` or the process ends; throws
 * DataFolderHeldError, writing nothing, when a live process holds it. A lock of a dead process is taken
 * over (`onTakeover` is told whose). A failure (no space, no permission) leaves no file behind.
 * @param {string} folder
 * @param {{ onTakeover?: (pid: number) => void, onModeFixed?: (mode: number) => void }} [options]
 * @returns {{ release(): void }}
 */
export function lockDataFolder(folder, { onTakeover, onModeFixed = warnModeFixed(folder) } = {}) {
	const file = path.join(folder, LOCK_FILE);
	const held = holderOf(folder);
	if (held !== null) throw new DataFolderHeldError(folder, held);
	mkdirSync(folder, { recursive: true, mode: 0o700 });
	const was = closeDataFolder(folder);
	if (was !== null) onModeFixed(was);
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

/** What a folder's mode change says by default (the db:* scripts): a line on stderr. @param {string} folder */
const warnModeFixed = (folder) => (/** @type {number} */ mode) => console.warn(modeFixedInWords(folder, mode));

/** @param {string} folder @param {number} mode */
export const modeFixedInWords = (folder, mode) =>
	`The data folder ${folder} was open to other users (mode ${mode.toString(8)}); it is now 700, its owner's alone.`;
