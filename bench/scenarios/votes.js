// @ts-check
// Reviewers and votes (#27). Two figures, each against a baseline in the same run:
// 1. /review (queue and voted tab) and the admin table with votes (default page, votes=ready,
//    sort=score) at each scale against 1x, with admin.js's data (1x = 1,000 applications) and three
//    votes on every application (1x = 3,000 votes, 100x = 300,000) by ten reviewers, the measured one
//    among them; sequential requests, so latency is the server's time per page.
// 2. SQL statements per vote (POST /review/[id]?/vote), counted on the wire; target at most 3.
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { countingProxy, httpClient, quantile, signIn, startPortal } from '../harness.js';
import { seed } from './admin.js';

const REVIEWERS = 10;
const VOTES_PER_APPLICATION = 3;
const VOTE_RUNS = 20;

/** @type {import('../harness.js').Scenario} */
export default async function votes({ databaseUrl, engine, scales, rounds }) {
	if (engine !== 'postgres') return [{ name: 'votes: skipped with --pglite (the bench seeds votes over SQL)' }];
	const admin = privateKeyToAccount(generatePrivateKey());
	const reviewer = privateKeyToAccount(generatePrivateKey());
	const me = reviewer.address.toLowerCase();
	const others = Array.from({ length: REVIEWERS - 1 }, (_, i) => `0x${String(i + 1).padStart(40, 'e')}`);
	const reviewers = [me, ...others];
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	await sql`delete from application_events`;
	await sql`delete from application_notes`;
	await sql`delete from application_revisions`;
	await sql`delete from application_votes`;
	await sql`delete from applications`;
	await sql`delete from check_ins`;
	await sql`delete from members`;
	await sql`insert into application_forms (created_by, rubric) values (${admin.address.toLowerCase()}, ${sql.json([
		{ key: 'fit', label: 'Fit' },
		{ key: 'effort', label: 'Effort' }
	])})`;
	const proxy = await countingProxy(databaseUrl);
	const portal = await startPortal({
		DATABASE_URL: proxy.url,
		ADMIN_ADDRESSES: admin.address,
		REVIEWER_ADDRESSES: reviewer.address
	});
	const client = httpClient(portal.url, 1);
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	/** @type {Map<string, import('../harness.js').Rate>} */
	const first = new Map();
	try {
		const adminCookie = await signIn(portal.url, admin);
		const reviewerCookie = await signIn(portal.url, reviewer);
		/** @type {[path: string, cookie: string, marker: string][]} */
		const pages = [
			['/review', reviewerCookie, '/review/'],
			['/review?tab=voted', reviewerCookie, '/review/'],
			['/admin', adminCookie, '/admin/applications/'],
			['/admin?votes=ready', adminCookie, '/admin/applications/'],
			['/admin?review=pending&sort=score', adminCookie, '/admin/applications/']
		];
		let seeded = 0;
		for (const scale of scales) {
			await seed(sql, seeded, 1000 * scale, admin.address.toLowerCase());
			// Three votes on every application without any, by three of the ten reviewers in turn (the
			// measured reviewer votes on three in ten), over the last 30 days.
			await sql`
				insert into application_votes (application_id, reviewer_address, vote, scores, comment, created_at)
				select a.id, (${sql.array(reviewers)}::text[])[1 + (a.n + k) % ${REVIEWERS}],
					(array['approve','approve','reject','abstain'])[1 + (a.n + k) % 4],
					case when (a.n + k) % 4 = 3 then '{}'::jsonb
						else jsonb_build_object('fit', 1 + (a.n + k) % 5, 'effort', 1 + (a.n * 7 + k) % 5) end,
					case when (a.n + k) % 4 = 2 then 'Not enough detail yet.' else '' end,
					a.created_at + make_interval(mins => k)
				from (select id, created_at, row_number() over (order by id) as n from applications
					where not exists (select 1 from application_votes v where v.application_id = applications.id)) a
				cross join generate_series(1, ${VOTES_PER_APPLICATION}) as k`;
			seeded = 1000 * scale;
			await sql`vacuum (analyze) applications, application_votes`;
			for (const [path, cookie, marker] of pages) {
				for (let i = 0; i < 5; i++) await client.get(path, { cookie, accept: 'text/html' });
				/** @type {number[]} */
				const latencies = [];
				/** @type {number[]} */
				const statements = [];
				let errors = 0;
				for (let n = 0; n < 20 * rounds; n++) {
					const before = proxy.counter.statements;
					const t = performance.now();
					const r = await client.get(path, { cookie, accept: 'text/html' }).catch(() => null);
					latencies.push(performance.now() - t);
					await new Promise((resolve) => setImmediate(resolve));
					statements.push(proxy.counter.statements - before);
					if (!r || r.status !== 200 || !r.text.includes(marker)) errors++;
				}
				latencies.sort((a, b) => a - b);
				const p50 = quantile(latencies, 0.5);
				const result = { rps: 1000 / p50, p50, p99: quantile(latencies, 0.99), errors };
				if (!first.has(path)) first.set(path, result);
				rows.push({
					name: `GET ${path}, ${seeded} apps, ${seeded * VOTES_PER_APPLICATION} votes (${scale}x), sequential (vs the same at ${scales[0] ?? 1}x)`,
					...result,
					rss: portal.peakRssMiB(),
					queries: Math.max(...statements),
					baseline: first.get(path),
					target: 'time <= 1.5x (ratio >= 0.67)'
				});
			}
		}

		// SQL statements per vote: on pending applications the reviewer has not voted on, sequential.
		/** @type {{ id: string }[]} */
		const ids = await sql`select id from applications a where review = 'pending' and not exists
			(select 1 from application_votes v where v.application_id = a.id and v.reviewer_address = ${me})
			order by created_at limit ${VOTE_RUNS + 1}`;
		await sql`delete from rate_limit_counters where subject = ${me}`;
		/** @type {number[]} */
		const latencies = [];
		/** @type {number[]} */
		const statements = [];
		let errors = 0;
		for (const [n, { id }] of ids.entries()) {
			const before = proxy.counter.statements;
			const t = performance.now();
			const r = await client.request('POST', `/review/${id}?/vote`, {
				headers: {
					cookie: reviewerCookie,
					origin: portal.url,
					accept: 'text/html',
					'content-type': 'application/x-www-form-urlencoded'
				},
				body: new URLSearchParams({ vote: 'approve', 'score.fit': '4', 'score.effort': '3' }).toString()
			});
			const elapsed = performance.now() - t;
			await new Promise((resolve) => setImmediate(resolve));
			if (n === 0) continue; // warm-up
			latencies.push(elapsed);
			statements.push(proxy.counter.statements - before);
			if (r.status !== 303) errors++;
		}
		latencies.sort((a, b) => a - b);
		const p50 = quantile(latencies, 0.5);
		rows.push({
			name: `POST /review/[id]?/vote, ${VOTE_RUNS} votes at ${seeded} apps, sequential: SQL statements per vote (max; mean ${(
				statements.reduce((a, b) => a + b, 0) / Math.max(1, statements.length)
			).toFixed(1)})`,
			rps: 1000 / p50,
			p50,
			p99: quantile(latencies, 0.99),
			errors,
			queries: Math.max(...statements),
			target: 'SQL/vote <= 3'
		});
	} finally {
		client.close();
		await portal.stop();
		await proxy.close();
		await sql.end();
	}
	return rows;
}
