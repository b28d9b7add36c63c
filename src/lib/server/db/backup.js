// @ts-check
// Backups as gzip files of the dump (dump.js), written whole or not at all, and the local channel by
// which `npm run db:backup` asks the server that holds an embedded folder to make one (docs/operating.md).
import { createWriteStream, existsSync, fsyncSync, openSync, closeSync, renameSync, rmSync } from 'node:fs';
import { chmod, readdir, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { writeDump } from './dump.js';

/** The socket in the data folder (mode 600, in a folder of mode 700): only the server's user may ask. */
export const BACKUP_SOCKET = 'backup.sock';
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
 * Writes the dump, gzipped, to a stream.
 * @param {Snapshot} snapshot
 * @param {NodeJS.WritableStream} out
 */
export async function dumpTo(snapshot, out) {
	const text = new PassThrough();
	const piped = pipeline(text, createGzip(), out);
	const counts = await snapshot((query) =>
		writeDump(query, (line) => {
			if (!text.write(line + '\n')) return new Promise((resolve) => text.once('drain', () => resolve(undefined)));
		})
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
 */
export async function backupToFile(snapshot, file) {
	const partial = `${file}.partial`;
	try {
		const counts = await dumpTo(snapshot, createWriteStream(partial, { mode: 0o600 }));
		const fd = openSync(partial, 'r');
		fsyncSync(fd);
		closeSync(fd);
		renameSync(partial, file);
		return counts;
	} finally {
		if (existsSync(partial)) rmSync(partial, { force: true });
	}
}

/** `portal-20261127T120000Z.sql.gz`: sorts by time. */
export const backupName = (date = new Date()) =>
	`portal-${date
		.toISOString()
		.replace(/[-:]/g, '')
		.replace(/\.\d+Z$/, 'Z')}.sql.gz`;

/**
 * The daily backups of an embedded folder, newest first.
 * @param {string} dataDir
 */
export async function dailyBackups(dataDir) {
	const folder = path.join(dataDir, BACKUPS_FOLDER);
	const names = await readdir(folder).catch(() => /** @type {string[]} */ ([]));
	return names
		.filter((name) => /^portal-\d{8}T\d{6}Z\.sql\.gz$/.test(name))
		.sort()
		.reverse()
		.map((name) => path.join(folder, name));
}

/**
 * Makes today's backup when the newest is a day old (or there is none), then keeps the newest `keep`.
 * Returns when the newest backup was taken, or null.
 * @param {Snapshot} snapshot
 * @param {string} dataDir
 * @param {number} keep
 */
export async function dailyBackup(snapshot, dataDir, keep) {
	const [newest] = await dailyBackups(dataDir);
	const taken = newest ? (await stat(newest)).mtime : null;
	if (taken && Date.now() - taken.getTime() < 24 * 3600 * 1000) return taken;
	const { mkdirSync } = await import('node:fs');
	mkdirSync(path.join(dataDir, BACKUPS_FOLDER), { recursive: true, mode: 0o700 });
	const file = path.join(dataDir, BACKUPS_FOLDER, backupName());
	await backupToFile(snapshot, file);
	for (const old of (await dailyBackups(dataDir)).slice(keep)) await rm(old, { force: true });
	return (await stat(file)).mtime;
}

/**
 * Serves backups to `npm run db:backup` on the data folder's socket: each connection gets one gzipped dump.
 * @param {Snapshot} snapshot
 * @param {string} dataDir
 * @returns {Promise<net.Server>}
 */
export async function serveBackups(snapshot, dataDir) {
	const socket = path.join(dataDir, BACKUP_SOCKET);
	rmSync(socket, { force: true }); // a dead server's socket: this process holds the folder's lock
	const server = net.createServer((connection) => {
		dumpTo(snapshot, connection).catch((/** @type {unknown} */ err) => {
			console.error(`A backup asked for by db:backup failed: ${err instanceof Error ? err.message : String(err)}`);
			connection.destroy();
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(socket, () => resolve(undefined));
	});
	await chmod(socket, 0o600);
	server.unref();
	return server;
}

/**
 * Asks the server holding `dataDir` for a backup, written to `out`.
 * @param {string} dataDir
 * @param {NodeJS.WritableStream} out
 */
export async function backupFromServer(dataDir, out) {
	const connection = net.createConnection(path.join(dataDir, BACKUP_SOCKET));
	await pipeline(connection, out);
}
