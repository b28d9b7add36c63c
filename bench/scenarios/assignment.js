// @ts-check
// A fair review (#44). Two figures, each against a baseline in the same run:
// 1. GET /review for a reviewer added in the portal, with 50 reviewers and 2 assigned per application
//    (admin.js's data: 1x = 1,000 applications, 2,000 assignments), at each scale against 1x;
//    sequential requests, so latency is the server's time per page. Target: within 1.5x.
// 2. POST /apply with assignment (per_application 2, 50 reviewers, under the advisory lock) against
//    the same without (per_application 0), in alternating rounds at the largest scale's data.
//    Target: within 1.2x.
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { httpClient, quantile, signIn, startPortal } from '../harness.js';
import { seed } from './admin.js';

const REVIEWERS = 50;
const PER_APPLICATION = 2;
const SUBMISSIONS_PER_ROUND = 20;

/** @type {import('../harness.js').Scenario} */
export default async function assignment({ databaseUrl, engine, scales, rounds }) {
	if (engine !== 'postgres') return [{ name: 'assignment: skipped with --pglite (the bench seeds over SQL)' }];
	const admin = privateKeyToAccount(generatePrivateKey());
	const reviewer = privateKeyToAccount(generatePrivateKey());
	const me = reviewer.address.toLowerCase();
	const others = Array.from({ length: REVIEWERS - 1 }, (_, i) => `0x${String(i + 1).padStart(40, 'd')}`);
	const reviewers = [me, ...others];
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	for (const table of [
		'review_assignments',
		'review_conflicts',
		'reviewers',
		'review_settings',
		'application_events',
		'application_notes',
		'application_revisions',
		'application_votes',
		'applications',
		'check_ins',
		'members'
	])
		await sql.unsafe(`delete from ${table}`);
	await sql`insert into reviewers (address, added_by) select unnest(${sql.array(reviewers)}::text[]), ${admin.address.toLowerCase()}`;
	await sql`insert into review_settings (id, per_application) values (1, ${PER_APPLICATION})`;
	const portal = await startPortal({ DATABASE_URL: databaseUrl, ADMIN_ADDRESSES: admin.address });
	const client = httpClient(portal.url, 1);
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	try {
		const cookie = await signIn(portal.url, reviewer);
		/** @type {import('../harness.js').Rate | undefined} */
		let first;
		let seeded = 0;
		for (const scale of scales) {
			await seed(sql, seeded, 1000 * scale, admin.address.toLowerCase());
			// Two reviewers per application in turn, assigned when it was submitted.
			await sql`
				insert into review_assignments (application_id, reviewer_address, assigned_at, assigned_by)
				select a.id, (${sql.array(reviewers)}::text[])[1 + (a.n * 2 + k) % ${REVIEWERS}], a.created_at, 'auto'
				from (select id, created_at, row_number() over (order by created_at, id) as n from applications
					where not exists (select 1 from review_assignments r where r.application_id = applications.id)) a
				cross join generate_series(0, ${PER_APPLICATION - 1}) as k`;
			seeded = 1000 * scale;
			await sql`vacuum (analyze) applications, review_assignments`;
			for (let i = 0; i < 5; i++) await client.get('/review', { cookie, accept: 'text/html' });
			/** @type {number[]} */
			const latencies = [];
			let errors = 0;
			for (let n = 0; n < 20 * rounds; n++) {
				const t = performance.now();
				const r = await client.get('/review', { cookie, accept: 'text/html' }).catch(() => null);
				latencies.push(performance.now() - t);
				if (!r || r.status !== 200 || !r.text.includes('Assigned to you')) errors++;
			}
			latencies.sort((a, b) => a - b);
			const p50 = quantile(latencies, 0.5);
			const result = { rps: 1000 / p50, p50, p99: quantile(latencies, 0.99), errors };
			first ??= result;
			rows.push({
				name: `GET /review, ${REVIEWERS} reviewers, ${PER_APPLICATION} per application, ${seeded} apps (${scale}x), sequential (vs the same at ${scales[0] ?? 1}x)`,
				...result,
				rss: portal.peakRssMiB(),
				baseline: first,
				target: 'time <= 1.5x (ratio >= 0.67)'
			});
		}

		// Submissions with and without assignment, alternating, at the data of the largest scale.
		const members = [];
		for (let i = 0; i < SUBMISSIONS_PER_ROUND; i++) {
			const account = privateKeyToAccount(generatePrivateKey());
			members.push({ address: account.address.toLowerCase(), cookie: await signIn(portal.url, account) });
		}
		/** @type {Record<'without' | 'with', number[]>} */
		const samples = { without: [], with: [] };
		let errors = 0;
		for (let round = 0; round <= rounds; round++) {
			for (const kind of /** @type {const} */ (['without', 'with'])) {
				await sql`update review_settings set per_application = ${kind === 'with' ? PER_APPLICATION : 0}`;
				for (const member of members) {
					await sql`delete from review_assignments where application_id in (select id from applications where applicant_address = ${member.address})`;
					await sql`delete from applications where applicant_address = ${member.address}`;
					await sql`delete from rate_limit_counters where subject = ${member.address}`;
					const t = performance.now();
					const r = await client.request('POST', '/apply', {
						headers: {
							cookie: member.cookie,
							origin: portal.url,
							accept: 'text/html',
							'content-type': 'application/x-www-form-urlencoded'
						},
						body: new URLSearchParams({ displayName: 'Bench', motivation: 'I would like to join.' }).toString()
					});
					const elapsed = performance.now() - t;
					if (r.status !== 303) errors++;
					if (round > 0) samples[kind].push(elapsed); // round 0 warms up
				}
			}
		}
		const assigned = await sql`select count(*)::int as n from review_assignments a join applications p
			on p.id = a.application_id where p.applicant_address in ${sql(members.map((m) => m.address))}`;
		if (assigned[0]?.n !== SUBMISSIONS_PER_ROUND * PER_APPLICATION) errors++;
		/** @param {number[]} list */
		const rateOf = (list) => {
			const sorted = [...list].sort((a, b) => a - b);
			const p50 = quantile(sorted, 0.5);
			return { rps: 1000 / p50, p50, p99: quantile(sorted, 0.99), errors };
		};
		const baseline = rateOf(samples.without);
		rows.push({
			name: `POST /apply without assignment (per_application 0), ${seeded} apps, ${rounds} alternating rounds x ${SUBMISSIONS_PER_ROUND}`,
			...baseline
		});
		rows.push({
			name: `POST /apply with assignment (${PER_APPLICATION} of ${REVIEWERS} reviewers, least loaded, advisory lock; vs without in the same rounds)`,
			...rateOf(samples.with),
			baseline,
			target: 'time <= 1.2x (ratio >= 0.83)'
		});
	} finally {
		client.close();
		await portal.stop();
		await sql.end();
	}
	return rows;
}
