// @ts-check
// /admin/insights and /metrics with 1x, 10x and 100x data, where 1x = 1,000 applications, 5,000 audit
// rows (the admin scenario's seed: one application every 14 minutes back from now) and 10,000
// check-ins (one every 84 seconds back from now), so 100x is 100,000 / 500,000 / 1,000,000 spread
// over 2.7 years: the charts' windows (26 weeks, 90 days) then hold about 19x and 9x the rows of 1x.
// Plus an outbox of 1,000 delivered, 10 waiting and 5 failed webhook rows per 1x.
// The page serves one reading a minute per process (INSIGHTS_TTL_MS), so two figures: "cold" is the
// first request of a freshly started portal (the five statements run), "warm" the sequential
// requests after it. Requests are sequential on loopback: latency is the server's time.
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { httpClient, quantile, signIn, startPortal } from '../harness.js';
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
	await sql`vacuum (analyze) check_ins, webhook_deliveries`;
}

/** @type {import('../harness.js').Scenario} */
export default async function insights({ databaseUrl, engine, scales, seconds }) {
	if (engine !== 'postgres')
		return [{ name: 'insights: skipped with --pglite (the bench seeds the database over SQL)' }];
	const account = privateKeyToAccount(generatePrivateKey());
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	const env = { DATABASE_URL: databaseUrl, ADMIN_ADDRESSES: account.address, METRICS_TOKEN: TOKEN };
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	/** @type {Record<string, import('../harness.js').Rate>} */
	const first = {};
	/** @param {string} key @param {import('../harness.js').Rate} rate */
	const baseline = (key, rate) => (first[key] ??= rate);
	try {
		let seeded = 0;
		for (const scale of scales) {
			const started = performance.now();
			await seedApplications(sql, seeded, UNIT * scale, account.address.toLowerCase());
			await seedRest(sql, seeded * CHECKINS_PER_APPLICATION, UNIT * scale * CHECKINS_PER_APPLICATION, UNIT * scale);
			seeded = UNIT * scale;
			console.error(
				`  insights: ${seeded} applications seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`
			);
			const label = `${seeded} apps / ${seeded * 5} audit rows / ${seeded * CHECKINS_PER_APPLICATION} check-ins (${scale}x)`;

			/** @type {number[]} */
			const cold = [];
			/** @type {number[]} */
			const warm = [];
			/** @type {number[]} */
			const scrapes = [];
			let errors = 0;
			for (let start = 0; start < COLD_STARTS; start++) {
				const portal = await startPortal(env);
				const client = httpClient(portal.url, 1);
				try {
					const cookie = await signIn(portal.url, account);
					const headers = { cookie, accept: 'text/html' };
					for (let i = 0; i < 3; i++) await client.get('/admin', headers); // the server's code warm, not the insights
					let t = performance.now();
					await client.get('/admin/insights', headers).catch(() => errors++);
					cold.push(performance.now() - t);
					const end = performance.now() + (seconds * 1000) / COLD_STARTS;
					for (let n = 0; performance.now() < end || n < 5; n++) {
						t = performance.now();
						await client.get('/admin/insights', headers).catch(() => errors++);
						warm.push(performance.now() - t);
						t = performance.now();
						await client.get('/metrics', { authorization: `Bearer ${TOKEN}` }).catch(() => errors++);
						scrapes.push(performance.now() - t);
					}
				} finally {
					client.close();
					await portal.stop();
				}
			}
			for (const list of [cold, warm, scrapes]) list.sort((a, b) => a - b);
			/** @param {number[]} list */
			const rate = (list) => {
				const p50 = quantile(list, 0.5);
				return { rps: 1000 / p50, p50, p99: quantile(list, 0.99), errors };
			};
			const coldRate = rate(cold);
			rows.push({
				name: `GET /admin/insights cold (first after start: 5 statements), ${label}, median of ${COLD_STARTS} starts, p99 = worst (vs 1x)`,
				...coldRate,
				p99: cold[cold.length - 1] ?? 0,
				baseline: baseline('cold', coldRate),
				target: 'reported'
			});
			const warmRate = rate(warm);
			rows.push({
				name: `GET /admin/insights warm (reading of the last minute), ${label}, sequential (vs 1x)`,
				...warmRate,
				baseline: baseline('warm', warmRate),
				target: 'ratio >= 0.67 (1.5x)'
			});
			const scrapeRate = rate(scrapes);
			rows.push({
				name: `GET /metrics scrape, outbox of ${seeded * 1.015} rows, ${label}, sequential (vs 1x)`,
				...scrapeRate,
				baseline: baseline('scrape', scrapeRate),
				target: 'p50 < 50 ms'
			});
		}
	} finally {
		await sql.end();
	}
	return rows;
}
