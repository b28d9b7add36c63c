// @ts-check
// /admin/insights and /metrics with 1x, 10x and 100x data, where 1x = 1,000 applications, 5,000 audit
// rows (the admin scenario's seed: one application every 14 minutes back from now) and 10,000
// check-ins (one every 84 seconds back from now), so 100x is 100,000 / 500,000 / 1,000,000 spread
// over 2.7 years: the charts' windows (26 weeks, 90 days) then hold about 19x and 9x the rows of 1x.
// Plus an outbox of 1,000 delivered, 10 waiting and 5 failed webhook rows per 1x.
// Every request reads the charts afresh from the rollup tables of drizzle/0010 (no cache), so "cold"
// is the first request of a freshly started portal (its statements planned for the first time),
// "warm" the sequential requests after it. Requests are sequential on loopback: latency is the
// server's time. The baseline is a second database that stays at 1x, measured in the same passes
// (request by request in turn), so a change in the machine's load falls on both figures alike. The
// triggers keep the rollup while the seed is written.
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBenchDatabase, httpClient, quantile, signIn, startPortal } from '../harness.js';
import { seed as seedApplications } from './admin.js';

const UNIT = 1_000;
const CHECKINS_PER_APPLICATION = 10;
const TOKEN = 'bench-metrics-token-0123456789abcdef0123456789';
const COLD_STARTS = 3;

/**
 * Check-ins from+1..to (one every 84 s back from now) by the applicants of the admin seed, and the
 * outbox rows of one more unit of webhooks.
 * @param {import('postgres').Sql} sql
 * @param {number} from
 * @param {number} to
 * @param {number} members
 */
async function seedRest(sql, from, to, members) {
	await sql`
		insert into check_ins (member_address, note, created_at)
		select '0x' || left(encode(sha256((1 + g % ${members})::text::bytea), 'hex'), 40), '', now() - make_interval(secs => g * 84)
		from generate_series(${from + 1}::int, ${to}::int) g`;
	const units = (to - from) / (UNIT * CHECKINS_PER_APPLICATION);
	await sql`
		insert into webhook_deliveries (event_id, event_type, data, url_hash, url_host, status, occurred_at)
		select gen_random_uuid(), 'checkin.created', '{}'::jsonb, 'h', 'example.org',
			(case when g % 1015 < 10 then 'pending' when g % 1015 < 15 then 'failed' else 'delivered' end)::webhook_status,
			now() - make_interval(secs => g)
		from generate_series(1, ${Math.round(units * 1015)}::int) g`;
	await sql`vacuum (analyze) check_ins, webhook_deliveries, insights_applications, insights_first_decisions, insights_wait_buckets, insights_check_in_days`;
}

/**
 * One measuring pass over a portal per database, alternating between them request by request so that
 * the machine's load falls on both alike: per database, the cold first request of COLD_STARTS fresh
 * starts, then warm page requests and scrapes for `seconds`.
 * @param {string[]} urls
 * @param {import('viem').PrivateKeyAccount} account
 * @param {number} seconds
 */
async function measure(urls, account, seconds) {
	const results = urls.map(() => ({
		cold: /** @type {number[]} */ ([]),
		warm: /** @type {number[]} */ ([]),
		scrapes: /** @type {number[]} */ ([]),
		errors: 0
	}));
	/** @param {string} url */
	const open = async (url) => {
		const portal = await startPortal({ DATABASE_URL: url, ADMIN_ADDRESSES: account.address, METRICS_TOKEN: TOKEN });
		const client = httpClient(portal.url, 1);
		const cookie = await signIn(portal.url, account);
		const headers = { cookie, accept: 'text/html' };
		for (let i = 0; i < 3; i++) await client.get('/admin', headers); // the server's code warm, not the insights
		return { portal, client, headers };
	};
	for (let start = 0; start < COLD_STARTS; start++) {
		const opened = [];
		try {
			for (const url of urls) opened.push(await open(url));
			for (const [i, { client, headers }] of opened.entries()) {
				const result = results[i];
				if (!result) continue;
				const t = performance.now();
				await client.get('/admin/insights', headers).catch(() => result.errors++);
				result.cold.push(performance.now() - t);
			}
			const end = performance.now() + (seconds * 1000) / COLD_STARTS;
			for (let n = 0; performance.now() < end || n < 5; n++) {
				for (const [i, { client, headers }] of opened.entries()) {
					const result = results[i];
					if (!result) continue;
					let t = performance.now();
					await client.get('/admin/insights', headers).catch(() => result.errors++);
					result.warm.push(performance.now() - t);
					t = performance.now();
					await client.get('/metrics', { authorization: `Bearer ${TOKEN}` }).catch(() => result.errors++);
					result.scrapes.push(performance.now() - t);
				}
			}
		} finally {
			for (const { client, portal } of opened) {
				client.close();
				await portal.stop();
			}
		}
	}
	return results.map(({ cold, warm, scrapes, errors }) => {
		for (const list of [cold, warm, scrapes]) list.sort((a, b) => a - b);
		/** @param {number[]} list @returns {import('../harness.js').Rate} */
		const rate = (list) => {
			const p50 = quantile(list, 0.5);
			return { rps: 1000 / p50, p50, p99: quantile(list, 0.99), errors };
		};
		return { cold: { ...rate(cold), p99: cold[cold.length - 1] ?? 0 }, warm: rate(warm), scrape: rate(scrapes) };
	});
}

/** @type {import('../harness.js').Scenario} */
export default async function insights({ databaseUrl, adminUrl, engine, scales, seconds }) {
	if (engine !== 'postgres')
		return [{ name: 'insights: skipped with --pglite (the bench seeds the database over SQL)' }];
	const account = privateKeyToAccount(generatePrivateKey());
	const executor = account.address.toLowerCase();
	// The baseline: a database of its own holding 1x, measured beside the growing one in every pass.
	const small = await createBenchDatabase(adminUrl);
	const smallSql = postgres(small.url, { max: 1, onnotice: () => {} });
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	try {
		await seedApplications(smallSql, 0, UNIT, executor);
		await seedRest(smallSql, 0, UNIT * CHECKINS_PER_APPLICATION, UNIT);
		let seeded = 0;
		for (const scale of scales) {
			const started = performance.now();
			await seedApplications(sql, seeded, UNIT * scale, executor);
			await seedRest(sql, seeded * CHECKINS_PER_APPLICATION, UNIT * scale * CHECKINS_PER_APPLICATION, UNIT * scale);
			seeded = UNIT * scale;
			console.error(
				`  insights: ${seeded} applications seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`
			);
			const label = `${seeded} apps / ${seeded * 5} audit rows / ${seeded * CHECKINS_PER_APPLICATION} check-ins (${scale}x)`;
			const [base, big] = await measure([small.url, databaseUrl], account, seconds);
			if (!base || !big) throw new Error('a measuring pass lost a database');
			rows.push(
				{
					name: `GET /admin/insights cold (first after start), ${label}, median of ${COLD_STARTS} starts, p99 = worst (vs 1x database, same passes)`,
					...big.cold,
					baseline: base.cold,
					target: 'ratio >= 0.67 (1.5x)'
				},
				{
					name: `GET /admin/insights warm (every statement runs), ${label}, sequential (vs 1x database, same passes)`,
					...big.warm,
					baseline: base.warm,
					target: 'ratio >= 0.67 (1.5x)'
				},
				{
					name: `GET /metrics scrape, outbox of ${Math.round(seeded * 1.015)} rows, ${label}, sequential (vs 1x database, same passes)`,
					...big.scrape,
					baseline: base.scrape,
					target: 'p50 < 50 ms'
				}
			);
		}
	} finally {
		await sql.end();
		await smallSql.end();
		await small.drop();
	}
	return rows;
}
