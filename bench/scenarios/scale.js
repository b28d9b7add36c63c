// @ts-check
// Launch-day size: the admin and reviewer pages and the full applications.csv at the largest of
// --scales (e.g. 1,1000) against a second database that stays at the first (1x = 1,000 applications,
// 5,000 audit rows, 200 notes, 1,000 check-ins, 150 votes; 1000x = 1,000,000 / 5,000,000 / ...),
// measured in the same passes request by request in turn, so the shared machine's load falls on both.
// Seeded with SQL (generate_series) through the admin scenario's seed. The export is read to the end
// by a streaming client: every row counted, the first byte timed, the server's RSS sampled from /proc.
import http from 'node:http';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBenchDatabase, httpClient, memoryOf, quantile, signIn, startPortal } from '../harness.js';
import { seed as seedApplications } from './admin.js';
import { createHash } from 'node:crypto';

const UNIT = 1_000;
const ADDRESS_777 = createHash('sha256').update('777').digest('hex').slice(0, 40);
/** The application of applicant 777 (seeded at every size), as a page of `prefix`. @param {string} prefix */
const application777 = (prefix) => /** @param {import('postgres').Sql} sql */ async (sql) => {
	const [row] = await sql`select id from applications where display_name = 'Applicant 777.'`;
	return `${prefix}/${String(row?.id)}`;
};
/** A page and its path, or how to find its path in a database (an application's id differs between them). */
/** @type {[label: string, path: string | ((sql: import('postgres').Sql) => Promise<string>)][]} */
const PAGES = [
	['first page', '/admin'],
	['filter review=pending, newest first', '/admin?review=pending&sort=newest'],
	['search by name fragment', '/admin?q=icant%20777.'],
	['search by address fragment', `/admin?q=${ADDRESS_777.slice(6, 16)}`],
	['last page', '/admin?before=end'],
	['reviewer queue', '/review'],
	['insights', '/admin/insights'],
	['an application, as an admin', application777('/admin/applications')],
	['an application, as a reviewer', application777('/review')],
	['Safe batches', '/admin/batches'],
	['reviewers and their workload', '/admin/reviewers'],
	['webhooks', '/admin/webhooks'],
	['the form', '/admin/form']
];

/**
 * Applications 1..to (the admin seed), one check-in each, a vote by `executor` on every fourth.
 * @param {import('postgres').Sql} sql
 * @param {number} to
 * @param {string} executor
 */
export async function seed(sql, to, executor) {
	// A bulk load writes the secondary indexes (five trigram GINs among them) far faster built afterwards
	// than kept row by row: the same indexes, by their own definitions, once the rows are in. (Not those of
	// check_ins: its insights trigger counts each member's day through them; nor those of application_votes:
	// its tally trigger recounts the touched applications through them.)
	const indexes = await sql`
		select indexname, indexdef from pg_indexes
		where schemaname = 'public' and tablename in ('applications', 'application_events', 'application_notes')
			and indexname not in (select conname from pg_constraint)`;
	for (const { indexname } of indexes) await sql.unsafe(`drop index "${String(indexname)}"`);
	let t = performance.now();
	const took = (/** @type {string} */ what) => {
		console.error(`  scale: ${to} applications, ${what} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
		t = performance.now();
	};
	await seedApplications(sql, 0, to, executor);
	took('applications, audit rows, notes');
	await sql`
		insert into check_ins (member_address, note, created_at)
		select '0x' || left(encode(sha256(g::text::bytea), 'hex'), 40), '', now() - make_interval(secs => g * 840)
		from generate_series(1, ${to}::int) g`;
	// The tally trigger's recount of the 150,000 voted applications is planned for a few (its array's size
	// is unknown to the planner): a nested loop over both sides, quadratic, which ran for over 10 minutes
	// at 1,000x. Hash joins make it one pass (16 s).
	await sql`set enable_nestloop = off`;
	await sql`
		insert into application_votes (application_id, reviewer_address, vote, created_at)
		select a.id, ${executor}, 'approve', a.created_at + interval '2 hours'
		from applications a where a.display_name ~ '[048]\\.$' and a.review = 'pending'`;
	await sql`reset enable_nestloop`;
	took('check-ins, votes');
	await sql`set maintenance_work_mem = '256MB'`;
	for (const { indexdef } of indexes) await sql.unsafe(String(indexdef));
	await sql`analyze`;
	took(`${indexes.length} indexes built, analyzed`);
	// applications too: the votes' tally trigger rewrote 150,000 of its rows after seed()'s vacuum, which
	// left 59% of its pages not all-visible and the table's capped counts reading the heap (5-7 ms at
	// 1,000x instead of 1-1.5): a table at rest, as autovacuum leaves it, is what the pages are measured on.
	await sql`vacuum applications, check_ins, application_votes, insights_applications, insights_check_in_days`;
}

/**
 * Reads the whole download as a client would, sampling the server's RSS every 50 ms.
 * @param {string} url
 * @param {string} cookie
 * @param {number} pid
 */
function download(url, cookie, pid) {
	const before = memoryOf(pid).rss;
	let peak = before;
	const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 50);
	const started = performance.now();
	return /** @type {Promise<{ firstByteMs: number, seconds: number, rows: number, bytes: number, beforeMiB: number, growthMiB: number, status: number }>} */ (
		new Promise((resolve, reject) => {
			http
				.get(url, { headers: { cookie } }, (res) => {
					let firstByteMs = 0;
					let rows = -1; // the header line
					let bytes = 0;
					res.on('data', (/** @type {Buffer} */ chunk) => {
						if (!firstByteMs) firstByteMs = performance.now() - started;
						bytes += chunk.length;
						for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
					});
					res.on('end', () => {
						clearInterval(sampler);
						resolve({
							firstByteMs,
							seconds: (performance.now() - started) / 1000,
							rows,
							bytes,
							beforeMiB: before,
							growthMiB: peak - before,
							status: res.statusCode ?? 0
						});
					});
					res.on('error', reject);
				})
				.on('error', reject);
		})
	);
}

/** @type {import('../harness.js').Scenario} */
export default async function scale({ databaseUrl, adminUrl, engine, scales, seconds, rounds }) {
	if (engine !== 'postgres') return [{ name: 'scale: skipped with --pglite (the bench seeds over SQL)' }];
	const small = scales[0] ?? 1;
	const big = scales[scales.length - 1] ?? 1000;
	const account = privateKeyToAccount(generatePrivateKey());
	const executor = account.address.toLowerCase();
	// BENCH_SCALE_DATABASES=<1x url>,<large url>: databases seeded before (kept), instead of seeding here.
	const given = process.env.BENCH_SCALE_DATABASES?.split(',');
	const baseline = given ? { url: given[0] ?? '', drop: async () => {} } : await createBenchDatabase(adminUrl);
	const bigUrl = given?.[1] ?? databaseUrl;
	const baseSql = postgres(baseline.url, { max: 1, onnotice: () => {} });
	const sql = postgres(bigUrl, { max: 1, onnotice: () => {} });
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	/** @type {{ portal: import('../harness.js').Portal, client: ReturnType<typeof httpClient>, cookie: string, paths: string[] }[]} */
	const opened = [];
	try {
		let t = performance.now();
		if (!given) {
			await seed(baseSql, UNIT * small, executor);
			await seed(sql, UNIT * big, executor);
			console.error(`  scale: ${UNIT * big} applications seeded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
		}
		for (const [db, url] of /** @type {const} */ ([
			[baseSql, baseline.url],
			[sql, bigUrl]
		])) {
			// Whoever voted in the seed (an earlier run's admin when the databases were given) is a reviewer,
			// so the reviewers page has their workload to compute; this run's admin is one too.
			await db`insert into reviewers (address, added_by)
				select distinct reviewer_address, ${executor} from application_votes
				union select ${executor}, ${executor} on conflict do nothing`;
			const portal = await startPortal({ DATABASE_URL: url, ADMIN_ADDRESSES: account.address });
			const cookie = await signIn(portal.url, account);
			/** @type {string[]} */
			const paths = [];
			for (const [, path] of PAGES) paths.push(typeof path === 'string' ? path : await path(db));
			opened.push({ portal, client: httpClient(portal.url, 1), cookie, paths });
		}
		for (const { client, cookie, paths } of opened)
			for (const path of paths) for (let i = 0; i < 3; i++) await client.get(path, { cookie, accept: 'text/html' });
		/** @type {Map<string, number[][]>} */
		const samples = new Map(PAGES.map(([label]) => [label, [[], []]]));
		const errors = [0, 0];
		for (let round = 0; round < rounds; round++)
			for (const [p, [label]] of PAGES.entries()) {
				const end = performance.now() + (seconds * 1000) / PAGES.length;
				for (let n = 0; performance.now() < end || n < 5; n++)
					for (const [i, { client, cookie, paths }] of opened.entries()) {
						t = performance.now();
						const r = await client.get(paths[p] ?? '', { cookie, accept: 'text/html' }).catch(() => null);
						samples.get(label)?.[i]?.push(performance.now() - t);
						if (!r || r.status !== 200) errors[i] = (errors[i] ?? 0) + 1;
					}
			}
		for (const [p, [label, path]] of PAGES.entries()) {
			const [base = [], grown = []] = samples.get(label) ?? [];
			/** @param {number[]} list @param {number} e */
			const rate = (list, e) => {
				list.sort((a, b) => a - b);
				const p50 = quantile(list, 0.5);
				return { rps: 1000 / p50, p50, p99: quantile(list, 0.99), errors: e };
			};
			rows.push({
				name: `GET ${typeof path === 'string' ? path : (opened[1]?.paths[p] ?? '')} (${label}) at ${big}x (${UNIT * big} apps) vs ${small}x, sequential, alternating`,
				...rate(grown, errors[1] ?? 0),
				baseline: rate(base, errors[0] ?? 0),
				target: 'ratio >= 0.67 (1.5x)'
			});
		}
		// The export at the large size: every row, first byte, rows/s, the server's RSS growth; twice, since
		// the first download grows V8's heap to where it settles and a second shows what a download then adds.
		const bigPortal = opened[1];
		if (bigPortal)
			for (const which of ['first', 'second']) {
				const d = await download(
					`${bigPortal.portal.url}/admin/applications.csv`,
					bigPortal.cookie,
					bigPortal.portal.pid
				);
				rows.push({
					name: `GET /admin/applications.csv at ${big}x (${which} download): ${d.rows} of ${UNIT * big} rows, ${(d.bytes / 2 ** 20).toFixed(0)} MiB in ${d.seconds.toFixed(1)} s = ${Math.round(d.rows / d.seconds)} rows/s, first byte ${d.firstByteMs.toFixed(0)} ms, server RSS ${d.beforeMiB.toFixed(0)} +${d.growthMiB.toFixed(0)} MiB (status ${d.status})`,
					target: 'every row, RSS growth <= 64 MiB, first byte <= 1 s, >= 50,000 rows/s'
				});
			}
	} finally {
		for (const { client, portal } of opened) {
			client.close();
			await portal.stop();
		}
		await baseSql.end();
		await sql.end();
		await baseline.drop();
	}
	return rows;
}
