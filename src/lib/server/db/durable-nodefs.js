// @ts-check
// PGlite's data folder with real fsync (docs/decisions/0038-one-folder-never-lost.md). PGlite starts
// Postgres with -F (fsync off), and even with fsync on its file system (Emscripten's NODEFS) makes
// fsync and fdatasync do nothing: a power cut could lose acknowledged writes. This file system
// passes fsync through to the disk; Postgres is started with fsync on and wal_sync_method=fsync
// (Emscripten's fdatasync stays a no-op).
import { fsyncSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

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
					(module) => {
						const nodefs = module.NODEFS;
						// A failed fsync becomes an errno, so Postgres stops rather than trusting the write.
						nodefs.stream_ops.fsync = (/** @type {{ nfd: number }} */ stream) => nodefs.tryFSOperation(() => (fsyncSync(stream.nfd), 0));
					}
				]
			}
		};
	}
}
