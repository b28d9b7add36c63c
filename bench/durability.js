// @ts-check
// The cost of fsync on for the embedded database (decision 0041): ms per single-row commit with PGlite's
// defaults (fsync off) and with DurableNodeFS (fsync on), alternated in one run: node bench/durability.js
import { tmpdir } from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import { rmSync } from 'node:fs';
import { DurableNodeFS, DURABLE_START_PARAMS } from '../src/lib/server/db/embedded.js';
/** @param {boolean} durable */
async function run(durable) {
	const dir = `${tmpdir()}/portal-fsync-bench-${durable ? 'on' : 'off'}`;
	rmSync(dir, { recursive: true, force: true });
	const pg = await PGlite.create(
		durable ? { fs: new DurableNodeFS(dir), startParams: DURABLE_START_PARAMS } : { dataDir: dir }
	);
	await pg.exec('create table t(id int primary key, x text)');
	for (let i = 0; i < 50; i++) await pg.query('insert into t values ($1, $2)', [-i - 1, 'w']);
	const t0 = process.hrtime.bigint();
	for (let i = 0; i < 500; i++) await pg.query('insert into t values ($1, $2)', [i, 'x'.repeat(200)]);
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	await pg.close();
	return ms / 500;
}
const off = await run(false),
	on = await run(true),
	off2 = await run(false),
	on2 = await run(true);
console.log(
	JSON.stringify({
		offMsPerCommit: [off, off2],
		onMsPerCommit: [on, on2],
		ratio: [(on / off).toFixed(2), (on2 / off2).toFixed(2)]
	})
);
