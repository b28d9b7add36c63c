// @ts-check
// consume_rate_limit against a bare single-row upsert through the same pool, spread over many keys
// and piled on one key, and how its cost grows with the size of the counters table.
import postgres from 'postgres';
import { alternate, loop, medianByRps } from '../harness.js';

/** @type {import('../harness.js').Scenario} */
export default async function rateLimit({ databaseUrl, seconds, scales, rounds }) {
	const sql = postgres(databaseUrl, { max: 50, onnotice: () => {} });
	await sql`create table if not exists bench_upsert (k text primary key, n integer not null)`;
	/** @param {string} key */
	const consume = (key) =>
		sql`select * from consume_rate_limit(${key}, 'bench', 1000000000, make_interval(hours => 1))`;
	/** @param {string} key */
	const upsert = (key) =>
		sql`insert into bench_upsert as b (k, n) values (${key}, 1) on conflict (k) do update set n = b.n + 1 returning n`;
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	try {
		const spread = { seconds, concurrency: 10 };
		const many = await alternate(rounds, {
			upsert: () => loop((w, i) => upsert(`k${w}-${i % 100}`), spread),
			consume: () => loop((w, i) => consume(`k${w}-${i % 100}`), spread)
		});
		rows.push({
			name: 'consume_rate_limit, 10 workers, many keys, from the bench process (vs bare single-row upsert, same pool)',
			...many.consume,
			queries: 1,
			baseline: many.upsert,
			target: 'ratio >= 0.5'
		});
		const hot = { seconds, concurrency: 50 };
		const one = await alternate(rounds, {
			upsert: () => loop(() => upsert('hot'), hot),
			consume: () => loop(() => consume('hot'), hot)
		});
		rows.push({
			name: 'consume_rate_limit, 50 connections, one key (vs bare upsert of one row, 50 connections)',
			...one.consume,
			queries: 1,
			baseline: one.upsert,
			target: 'ratio >= 0.5'
		});

		// How cost grows: the same call with 1x, 10x and 100x rows already in the table.
		let first = null;
		for (const scale of scales) {
			const target = 1000 * scale;
			await sql`insert into rate_limit_counters (subject, action, window_started_at, window_ends_at, count)
				select '0x' || lpad(to_hex(g), 40, '0'), 'filler', now(), now() + interval '1 hour', 1
				from generate_series(1, ${target}) g on conflict do nothing`;
			const runs = [];
			for (let r = 0; r < rounds; r++) runs.push(await loop((w, i) => consume(`s${w}-${i % 100}`), spread));
			const result = medianByRps(runs);
			first ??= result;
			rows.push({
				name: `consume_rate_limit with ${target} counters in the table (${scale}x), 10 workers (vs 1x)`,
				...result,
				queries: 1,
				baseline: first,
				target: 'flat (ratio ~1)'
			});
		}
	} finally {
		await sql.end();
	}
	return rows;
}
