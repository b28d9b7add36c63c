// @ts-check
// Backups as gzip files of the dump (dump.js), written whole or not at all, and the local channel by
// which `npm run db:backup` asks the server that holds an embedded folder to make one (docs/operating.md).
import {
	createReadStream,
	createWriteStream,
	existsSync,
	fsyncSync,
	openSync,
	closeSync,
	renameSync,
	rmSync
} from 'node:fs';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip } from 'node:zlib';
import { checkSealed, decryptStream, encryptStream } from './backup-crypt.js';
import { HEADER_LINES, fileLines, readDumpHeader, writeDump } from './dump.js';

/** The socket in the data folder (mode 600, in a folder of mode 700): only the server's user may ask. */
export const BACKUP_SOCKET = 'backup.sock';
/** The daily backups' folder in an embedded data folder (or, on a Postgres server, in the working folder) unless BACKUP_DIR says. */
export const BACKUPS_FOLDER = 'backups';

/** @typedef {import('./dump.js').Query} Query */
/** @typedef {<T>(work: (query: Query) => Promise<T>) => Promise<T>} Snapshot */

/**
 * A consistent read of a PGlite database: one repeatable-read transaction (PGlite has one session:
 * other statements wait until it ends).
 * @param {import('@electric-sql/pglite').PGlite} client
 * @returns {Snapshot}
 */
export const pgliteSnapshot = (client) => (work) =>
	client.transaction(async (tx) => {
		await tx.query('set transaction isolation level repeatable read, read only');
		return work(async (text) => /** @type {{ rows: Record<string, unknown>[] }} */ (await tx.query(text)).rows);
	});

/**
 * A consistent read of a Postgres server: one repeatable-read, read-only transaction.
 * @param {import('postgres').Sql} sql
 * @returns {Snapshot}
 */
export const postgresSnapshot = (sql) => (work) =>
	sql
		.begin('isolation level repeatable read read only', async (tx) => ({
			value: await work(async (text) => /** @type {Record<string, unknown>[]} */ ([...(await tx.unsafe(text))]))
		}))
		.then((result) => result.value);

/**
 * What a backup names besides its data: the portal's version (its header), the key that seals it
 * (backup-crypt.js) or none, and FILES_DIR, whose files it carries (none when the files are in S3).
 * @typedef {{ version: string, key?: Buffer | null, filesDir?: string | null }} BackupOptions
 */

/**
 * Writes the dump, gzipped (and sealed with `key` when given), to a stream.
 * @param {Snapshot} snapshot
 * @param {NodeJS.WritableStream} out
 * @param {BackupOptions} options
 */
export async function dumpTo(snapshot, out, { version, key = null, filesDir = null }) {
	const text = new PassThrough();
	const piped = key ? pipeline(text, createGzip(), encryptStream(key), out) : pipeline(text, createGzip(), out);
	const counts = await snapshot((query) =>
		writeDump(
			query,
			(line) => {
				if (!text.write(line + '\n')) return new Promise((resolve) => text.once('drain', () => resolve(undefined)));
			},
			version,
			filesDir
		)
	).catch((/** @type {unknown} */ err) => {
		text.destroy(err instanceof Error ? err : new Error(String(err)));
		throw err;
	});
	text.end();
	await piped;
	return counts;
}

/**
 * Writes a backup to `file`: to a partial file first, fsynced, then renamed, so a file by that name is always whole.
 * @param {Snapshot} snapshot
 * @param {string} file
 * @param {BackupOptions} options
 */
export async function backupToFile(snapshot, file, options) {
	const partial = `${file}.partial`;
	try {
		const counts = await dumpTo(snapshot, createWriteStream(partial, { mode: 0o600 }), options);
		const fd = openSync(partial, 'r');
		fsyncSync(fd);
		closeSync(fd);
		renameSync(partial, file);
		return counts;
	} finally {
		if (existsSync(partial)) rmSync(partial, { force: true });
	}
}

/**
 * The lines of a backup file, unsealed with `key` when it is encrypted, ungzipped. A file that cannot
 * be read, is not gzip, or does not open with the key fails the iteration (never an unhandled stream error).
 * @param {string} file
 * @param {Buffer | null} [key]
 * @returns {AsyncGenerator<string>}
 */
export async function* backupLines(file, key = null) {
	const stages = [createReadStream(file), ...(key ? [decryptStream(key)] : []), createGunzip()];
	const last = /** @type {import('node:stream').Transform} */ (stages.at(-1));
	for (let i = 1; i < stages.length; i++) {
		stages[i - 1]?.pipe(/** @type {import('node:stream').Transform} */ (stages[i]));
		stages[i - 1]?.once('error', (/** @type {Error} */ err) => last.destroy(err));
	}
	const decoder = new StringDecoder('utf8');
	let rest = '';
	for await (const piece of last) {
		/** @type {unknown} */
		const chunk = piece;
		rest += decoder.write(/** @type {Buffer} */ (chunk));
		const lines = rest.split('\n');
		rest = /** @type {string} */ (lines.pop());
		yield* lines;
	}
	rest += decoder.end();
	if (rest !== '') yield rest;
}

/**
 * A backup's header, row counts and files (how many, how many bytes), read to its end: a file cut
 * short or changed, or a carried file whose bytes do not hash to its name, is refused.
 * @param {string} file
 * @param {Buffer | null} [key]
 */
export async function readBackup(file, key = null) {
	if (key) await checkSealed(file, key);
	/** @type {string[]} */
	const head = [];
	let last = '';
	let rows = 0;
	const files = fileLines();
	for await (const line of backupLines(file, key)) {
		if (head.length < HEADER_LINES) head.push(line);
		if (line.trim() !== '') last = line;
		files.add(line);
		rows++;
	}
	if (rows === 0) throw new Error('the backup is empty');
	return { ...readDumpHeader([...head, last]), files: files.done() };
}

/** `portal-20261127T120000Z.sql.gz`: sorts by time. */
export const backupName = (date = new Date()) =>
	`portal-${date
		.toISOString()
		.replace(/[-:]/g, '')
		.replace(/\.\d+Z$/, 'Z')}.sql.gz`;

/**
 * The daily backups in `folder`, newest first.
 * @param {string} folder
 */
export async function dailyBackups(folder) {
	const names = await readdir(folder).catch(() => /** @type {string[]} */ ([]));
	return names
		.filter((name) => /^portal-\d{8}T\d{6}Z\.sql\.gz$/.test(name))
		.sort()
		.reverse()
		.map((name) => path.join(folder, name));
}

/**
 * Makes today's backup in `folder` when the newest is a day old (or there is none), then keeps the
 * newest `keep`. Returns when the newest backup was taken, and the new one's file and rows when it made one.
 * @param {Snapshot} snapshot
 * @param {string} folder
 * @param {number} keep
 * @param {BackupOptions} options
 * @returns {Promise<{ taken: Date, made: { file: string, bytes: number, rows: number, tables: number } | null }>}
 */
export async function dailyBackup(snapshot, folder, keep, options) {
	const [newest] = await dailyBackups(folder);
	const taken = newest ? (await stat(newest)).mtime : null;
	if (taken && Date.now() - taken.getTime() < 24 * 3600 * 1000) return { taken, made: null };
	await mkdir(folder, { recursive: true, mode: 0o700 });
	const file = path.join(folder, backupName());
	const counts = await backupToFile(snapshot, file, options);
	for (const old of (await dailyBackups(folder)).slice(keep)) await rm(old, { force: true });
	const { mtime, size } = await stat(file);
	const rows = Object.values(counts).reduce((a, b) => a + b, 0);
	return { taken: mtime, made: { file, bytes: size, rows, tables: Object.keys(counts).length } };
}

/**
 * Serves backups to `npm run db:backup` on the data folder's socket: each connection gets one gzipped
 * dump. The socket is removed when the process ends, however it ends short of kill -9 (then the next
 * server, holding the folder's lock, replaces it).
 * @param {Snapshot} snapshot
 * @param {string} dataDir
 * @param {BackupOptions & { onServed?: (rows: number) => void, onFailed?: (err: unknown) => void }} options
 * @returns {Promise<net.Server>}
 */
export async function serveBackups(snapshot, dataDir, { onServed, onFailed, ...options }) {
	const socket = path.join(dataDir, BACKUP_SOCKET);
	rmSync(socket, { force: true }); // a dead server's socket: this process holds the folder's lock
	const server = net.createServer((connection) => {
		dumpTo(snapshot, connection, options).then(
			(counts) => onServed?.(Object.values(counts).reduce((a, b) => a + b, 0)),
			(/** @type {unknown} */ err) => {
				onFailed?.(err);
				connection.destroy();
			}
		);
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(socket, () => resolve(undefined));
	});
	const remove = () => rmSync(socket, { force: true });
	process.once('exit', remove);
	server.once('close', () => process.off('exit', remove));
	await chmod(socket, 0o600);
	server.unref();
	return server;
}

/**
 * Asks the server holding `dataDir` for a backup, written to `out` (sealed here with `key` when given).
 * @param {string} dataDir
 * @param {NodeJS.WritableStream} out
 * @param {Buffer | null} [key]
 */
export async function backupFromServer(dataDir, out, key = null) {
	const connection = net.createConnection(path.join(dataDir, BACKUP_SOCKET));
	await (key ? pipeline(connection, encryptStream(key), out) : pipeline(connection, out));
}
