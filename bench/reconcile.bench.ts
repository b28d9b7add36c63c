// Find on chain at scale: 1,000 applications waiting for both steps, approved before 100,000 blocks,
// the oldest 100 of them settled by two Safe batches near the head. Counts what reconcile asks of the
// chain (JSON-RPC requests by method, through a counting proxy) and of the database (SQL statements on
// the wire, bench/harness.js countingProxy), against a bulk move of 100 (the baseline) in the same run.
// Usage: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx vitest bench --run bench/reconcile.bench.ts
// (about 2 minutes: ganache mines the 100,000 blocks in-process first).
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { bench, describe } from 'vitest';
import { moveInBulk, parseBulk } from '../src/lib/server/applications/bulk';
import { batchDownload } from '../src/lib/server/chain/batch-download';
import { reconcile } from '../src/lib/server/chain/reconcile';
import { createDb } from '../src/lib/server/db/client';
import { loadConfig } from '../src/lib/server/platform/config';
import { outboxTargets } from '../src/lib/server/platform/deliveries';
import { startFulfilmentChain } from '../tests/helpers/fulfilment-chain';
import { startRpcProxy } from '../tests/helpers/rpc-proxy';
import { countingProxy, createBenchDatabase } from './harness.js';

const WAITING = 1_000;
const SETTLED = 100;
const BLOCKS = 100_000;
const GRANT = 10n ** 18n;
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const database = await createBenchDatabase(adminUrl);
const sqlProxy = await countingProxy(database.url);
const handle = createDb({ databaseUrl: sqlProxy.url, pgliteDataDir: '' }, { max: 2 });
const seedSql = postgres(database.url, { max: 1, onnotice: () => {} });
const chain = await startFulfilmentChain();
const rpc = await startRpcProxy(chain.chain.url);
const config = loadConfig({
	SESSION_PASSWORD: randomBytes(32).toString('base64'),
	SIWE_ALLOWED_DOMAINS: 'portal.example',
	...chain.env(GRANT),
	POLYGON_RPC_URL: rpc.url
});
const outbox = outboxTargets(config);
const admin = { address: `0x${randomBytes(20).toString('hex')}`, isAdmin: true };

// 1,000 approved applications (2,000 for the baseline's bulk), each with its approval audit row an hour ago.
const address = seedSql.unsafe(`'0x' || left(encode(sha256(('reconcile' || g)::bytea), 'hex'), 40)`);
await seedSql`insert into members (address) select ${address} from generate_series(1, ${2 * WAITING}::int) g`;
await seedSql`
	insert into applications (applicant_address, display_name, motivation, review, created_at, updated_at)
	select ${address}, 'Applicant ' || g, 'Bench', 'approved', now() - interval '2 hours' + make_interval(secs => g), now()
	from generate_series(1, ${2 * WAITING}::int) g`;
await seedSql`
	insert into application_events (application_id, executor_address, created_at, field, from_state, to_state)
	select id, ${admin.address}, now() - interval '1 hour', 'review', 'pending', 'approved' from applications`;
const ids: string[] = (await seedSql`select id from applications order by created_at, id`).map((r) => String(r.id));
const [waitingIds, baselineIds] = [ids.slice(0, WAITING), ids.slice(WAITING)];
// The baseline's applications are not waiting for the allowlist (recorded failed, then moved by the bulk
// from failed): reconcile's 1,000 are the first half only.
await seedSql`update applications set allowlist = 'added', distribution = 'sent' where id in ${seedSql(baselineIds)}`;

const mined = performance.now();
await chain.mine(BLOCKS);
console.log(`ganache mined ${BLOCKS} blocks in ${((performance.now() - mined) / 1000).toFixed(0)} s`);
const params = new URLSearchParams(waitingIds.slice(0, SETTLED).map((id) => ['ids', id]));
for (const step of ['allowlist', 'distribution'] as const) {
	const batch = await batchDownload(handle.db, config, step, params);
	if (!batch.ok) throw new Error(batch.message);
	const executed = await chain.execute(batch.file.transactions);
	if (executed.status !== 'success') throw new Error(`${step} batch reverted`);
}

/** The block range each step's scan covered, for a reconcile's result. */
const blocksOf = (result: unknown) =>
	(result as { value?: unknown }).value instanceof Array
		? (result as { value: { step: string; fromBlock: string; toBlock: string }[] }).value.map(
				(r) => `${r.step} ${r.fromBlock}-${r.toBlock}`
			)
		: null;

/** What one call cost: requests by method, statements, milliseconds. */
async function measure<T>(label: string, work: () => Promise<T>, moved: (result: T) => number) {
	await seedSql`delete from rate_limit_counters where subject = ${admin.address}`;
	rpc.reset();
	const statements = sqlProxy.counter.statements;
	const started = performance.now();
	const result = await work();
	const ms = performance.now() - started;
	const sql = sqlProxy.counter.statements - statements;
	const n = moved(result);
	const requests = Object.fromEntries(rpc.counts);
	const total = [...rpc.counts.values()].reduce((a, b) => a + b, 0);
	console.log(
		JSON.stringify({
			label,
			ms: Math.round(ms),
			moved: n,
			sqlStatements: sql,
			perMoved: n ? +(sql / n).toFixed(3) : null,
			rpcTotal: total,
			rpc: requests,
			blocks: blocksOf(result)
		})
	);
	return ms;
}

const found = (r: Awaited<ReturnType<typeof reconcile>>) =>
	r.ok ? r.value.reduce((n, s) => n + s.found.length, 0) : 0;

describe('reconcile: 1,000 waiting, 100,000 blocks', () => {
	bench(
		`baseline: POST ?/bulk's move of ${SETTLED} (allowlist → added, one tx hash)`,
		async () => {
			const move = parseBulk({
				applicationIds: baselineIds.slice(0, SETTLED),
				field: 'distribution',
				to: 'sent',
				txHash: `0x${'ab'.repeat(32)}`
			});
			if (!move.ok) throw new Error(move.message);
			await seedSql`update applications set distribution = 'pending' where id in ${seedSql(baselineIds.slice(0, SETTLED))}`;
			await measure(
				'bulk',
				() => moveInBulk(handle.db, outbox, null, admin, move.value),
				(r) => (r.ok ? r.value.count : 0)
			);
		},
		{ iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 }
	);
	for (const step of ['allowlist', 'distribution'] as const)
		bench(
			`reconcile ${step}: ${SETTLED} found among ${WAITING} waiting`,
			async () => {
				await measure(`reconcile ${step}`, () => reconcile(handle.db, config, outbox, admin, { step }), found);
			},
			{ iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 }
		);
	bench(
		'reconcile again: nothing new (the scan alone)',
		async () => {
			await measure(
				'reconcile again',
				() => reconcile(handle.db, config, outbox, admin, { step: ['allowlist', 'distribution'] }),
				found
			);
		},
		{ iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 }
	);
	bench(
		'teardown',
		async () => {
			await Promise.all([handle.close(), seedSql.end(), rpc.close(), sqlProxy.close(), chain.close()]);
			await database.drop();
		},
		{ iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 }
	);
});
