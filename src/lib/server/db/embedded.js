// @ts-check
// How the embedded database (PGlite) is opened, by the server and by the db:* scripts alike.
// Its data folder with real fsync (docs/decisions/0041-one-folder-never-lost.md). PGlite starts
// Postgres with -F (fsync off), and even with fsync on its file system (Emscripten's NODEFS) makes
// fsync and fdatasync do nothing: a power cut could lose acknowledged writes. This file system
// passes fsync through to the disk; Postgres is started with fsync on and wal_sync_method=fsync
// (Emscripten's fdatasync stays a no-op).
import { fsyncSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/** PGlite's start parameters without -F, with every commit's WAL flushed through fsync. */
export const DURABLE_START_PARAMS = [
	...PGlite.defaultStartParams.filter((param) => param !== '-F'),
	'-c',
	'fsync=on',
	'-c',
	'wal_sync_method=fsync'
];

/**
 * @typedef {{ stream_ops: { fsync?: (stream: { nfd: number }) => number }, tryFSOperation: <T>(f: () => T) => T }} EmscriptenNodeFs
 */

export class DurableNodeFS extends NodeFS {
	/** @type {NodeFS['init']} */
	async init(pg, options) {
		const { emscriptenOpts } = await super.init(pg, options);
		const preRun = /** @type {((module: { NODEFS: EmscriptenNodeFs }) => void)[]} */ (emscriptenOpts.preRun ?? []);
		return {
			emscriptenOpts: {
				...emscriptenOpts,
				preRun: [
					...preRun,
					(/** @type {{ NODEFS: EmscriptenNodeFs }} */ module) => {
						const nodefs = module.NODEFS;
						// A failed fsync becomes an errno, so Postgres stops rather than trusting the write.
						nodefs.stream_ops.fsync = (/** @type {{ nfd: number }} */ stream) =>
							nodefs.tryFSOperation(() => (fsyncSync(stream.nfd), 0));
					}
				]
			}
		};
	}
}

/**
 * Sizes for a small server on top of PGlite's start parameters: Postgres's default 128 MB of shared
 * buffers live in the WebAssembly memory, which never shrinks; 16 MB (the data files stay in the OS
 * page cache) and 16 MB for index builds and vacuum keep `npm start`'s server under 300 MiB
 * (bench/history/2026-11-22-embedded-default-rss.md). initdb, which runs only for a new folder, gets the same shared buffers.
 */
const SIZES = ['shared_buffers=16MB', 'maintenance_work_mem=16MB'].flatMap((setting) => ['-c', setting]);

/**
 * PGlite's options for `dataDir`: in memory (`memory://`) as PGlite has them, in a folder durable.
 * pg_trgm serves the admin review table's search (drizzle/0002 creates the extension).
 * @param {string} dataDir
 * @returns {import('@electric-sql/pglite').PGliteOptions}
 */
export function pgliteOptions(dataDir) {
	const common = { initDbStartParams: ['-c', 'shared_buffers=16MB'], extensions: { pg_trgm } };
	if (dataDir.startsWith('memory://'))
		return { ...common, dataDir, startParams: [...PGlite.defaultStartParams, ...SIZES] };
	return { ...common, fs: new DurableNodeFS(dataDir), startParams: [...DURABLE_START_PARAMS, ...SIZES] };
}
