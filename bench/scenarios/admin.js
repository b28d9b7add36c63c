// @ts-check
// The /admin review table as an admin (signed in through the real endpoints, listed in ADMIN_ADDRESSES)
// with 1x, 10x and 100x data, where 1x = 1,000 applications, 5,000 audit rows and 200 reviewer notes,
// so 100x is 100,000 / 500,000 / 20,000. Addresses are hashes (as real ones look), so an address
// fragment matches one applicant at every size; names end in a full stop, so "icant 777." does too.
// Requests are sequential on loopback, so latency is the server's time
// per page; SQL statements per request are counted on the wire by a proxy in front of Postgres.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { countingProxy, httpClient, quantile, signIn, startPortal } from '../harness.js';

const UNIT = 1_000;
const EVENTS_PER_APPLICATION = 5;
// The address of applicant 777, as seed() makes it: '0x' + the first 40 hex of sha256('777').
const ADDRESS_777 = createHash('sha256').update('777').digest('hex').slice(0, 40);
/** @type {[label: string, path: string][]} */
const PAGES = [
	['first page', '/admin'],
	['filter review=pending, newest first', '/admin?review=pending&sort=newest'],
	['search by name fragment', '/admin?q=icant%20777.'],
	['search by address fragment', `/admin?q=${ADDRESS_777.slice(6, 16)}`],
	['last page', '/admin?before=end']
];
const NOTE_EVERY = 5;
// A bulk decision: 100 applications approved in one POST /admin?/bulk (confirmed), a warm-up and then BULK_RUNS timed.
const BULK = 100;
const BULK_RUNS = 3;

/** drizzle/0020's backfill, read from the migration so that the seed runs exactly what an upgrade does. */
function backfillStatements() {
	const statements = readFileSync('drizzle/0020_export_facts.sql', 'utf8').split('--> statement-breakpoint');
	const first = statements.findIndex((s) => s.includes('DISABLE TRIGGER'));
	const last = statements.findLastIndex((s) => s.includes('ENABLE TRIGGER'));
	if (first < 0 || last < first || !statements.slice(first, last).some((s) => s.includes('SET "last_tx_hash"')))
		throw new Error('drizzle/0020_export_facts.sql: its backfill was not found');
	return statements.slice(first, last + 1);
}

/**
 * Adds applicants from+1..to with one application each and 5 audit rows per application.
 * @param {import('postgres').Sql} sql
 * @param {number} from
 * @param {number} to
 * @param {string} executor  the admin's address, lower case
 */
export async function seed(sql, from, to, executor) {
	const address = sql.unsafe(`'0x' || left(encode(sha256(g::text::bytea), 'hex'), 40)`);
	await sql`insert into members (address) select ${address} from generate_series(${from + 1}::int, ${to}::int) g`;
	await sql`
		insert into applications (applicant_address, display_name, motivation, contact, review, allowlist, distribution, created_at, updated_at)
		select ${address}, 'Applicant ' || g || '.', repeat('I would like to join because ', 8), '@member' || g,
			(array['pending','needs_info','approved','rejected'])[1 + g % 4]::review_state,
			(case when g % 4 = 2 then (array['pending','added','failed'])[1 + g % 3] else 'pending' end)::allowlist_state,
			(case when g % 4 = 2 then (array['pending','sent','failed'])[1 + (g / 3) % 3] else 'pending' end)::distribution_state,
			now() - make_interval(mins => g * 14), now() - make_interval(mins => g * 14)
		from generate_series(${from + 1}::int, ${to}::int) g`;
	// The facts the export reads off each application (drizzle/0020) are set below in one pass, as the
	// migration's backfill does: row by row, each audit row with a tx hash recomputed its application's
	// newest one (over application_events with its indexes dropped for the load: quadratic, over 16
	// minutes at 1,000x before it was stopped).
	// (Absent from a build before drizzle/0020, which bench/ab.js may compare with.)
	const facts = await sql`select 1 from pg_trigger where tgname = 'application_notes_count_ins'`;
	const rowTriggers = facts.length ? ['application_events_last_tx_ins', 'application_notes_count_ins'] : [];
	const on = (/** @type {string} */ name) =>
		name.startsWith('application_events') ? 'application_events' : 'application_notes';
	for (const name of rowTriggers) await sql.unsafe(`alter table ${on(name)} disable trigger ${name}`);
	await sql`
		insert into application_events (application_id, executor_address, created_at, field, from_state, to_state, reason, tx_hash)
		select a.id, ${executor}, a.created_at + make_interval(mins => e.n),
			(array['review','review','allowlist','distribution','review'])[e.n]::application_field,
			'pending', 'needs_info', case when e.n % 2 = 0 then 'Please say more about your plans.' end,
			case when e.n in (3, 4) then '0x' || encode(sha256(convert_to(a.id::text || e.n, 'utf8')), 'hex') end
		from generate_series(${from + 1}::int, ${to}::int) g
		join applications a on a.applicant_address = ${address}
		cross join generate_series(1, ${EVENTS_PER_APPLICATION}) as e(n)`;
	await sql`
		insert into application_notes (application_id, author_address, body, created_at)
		select a.id, ${executor}, 'Checked their repository; looks active.', a.created_at + interval '1 hour'
		from generate_series(${from + 1}::int, ${to}::int) g
		join applications a on a.applicant_address = ${address}
		where g % ${NOTE_EVERY} = 0`;
	for (const name of rowTriggers) await sql.unsafe(`alter table ${on(name)} enable trigger ${name}`);
	// The backfill of drizzle/0020 itself: its statements from the first DISABLE TRIGGER to the last
	// ENABLE TRIGGER (the state-following statement triggers held off, one UPDATE of both columns).
	if (facts.length) for (const statement of backfillStatements()) await sql.unsafe(statement);
	// Vacuum now so that autovacuum does not wake up during the measured requests.
	await sql`vacuum (analyze) applications, application_events, application_notes, members`;
}

/** @type {import('../harness.js').Scenario} */
export default async function admin({ databaseUrl, engine, scales, seconds, rounds }) {
	if (!existsSync('src/routes/admin')) return [{ name: 'admin page: skipped (no /admin route on this branch)' }];
	if (engine !== 'postgres')
		return [{ name: 'admin page: skipped with --pglite (the bench seeds the database over SQL)' }];
	const account = privateKeyToAccount(generatePrivateKey());
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	const proxy = await countingProxy(databaseUrl);
	const portal = await startPortal({ DATABASE_URL: proxy.url, ADMIN_ADDRESSES: account.address });
	const client = httpClient(portal.url, 1);
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	/** @type {Map<string, import('../harness.js').Rate>} */
	const first = new Map();
	const subject = account.address.toLowerCase();

	/**
	 * Approves the BULK longest-waiting undecided applications in one POST, as the table's form sends
	 * it, BULK_RUNS times after a warm-up; one row with the median and worst time.
	 * @param {string} cookie
	 * @param {number} scale
	 * @param {number} seeded
	 * @returns {Promise<import('../harness.js').Row>}
	 */
	async function bulkRow(cookie, scale, seeded) {
		/** @type {number[]} */
		const latencies = [];
		/** @type {number[]} */
		const statements = [];
		let errors = 0;
		for (let run = 0; run <= BULK_RUNS; run++) {
			/** @type {{ id: string }[]} */
			const ids = await sql.unsafe(
				`select id from applications where review in ('pending', 'needs_info') order by created_at, id limit ${BULK}`
			);
			// Each bulk starts with a fresh hour's 120 (the limiter's own cost is the rate-limit scenario's).
			await sql`delete from rate_limit_counters where subject = ${subject}`;
			const body = new URLSearchParams([
				...ids.map((r) => ['applicationIds', String(r.id)]),
				['field', 'review'],
				['to', 'approved'],
				['confirm', 'yes']
			]).toString();
			const before = proxy.counter.statements;
			const t = performance.now();
			const r = await client.request('POST', '/admin?/bulk', {
				headers: {
					cookie,
					origin: portal.url,
					accept: 'text/html',
					'content-type': 'application/x-www-form-urlencoded'
				},
				body
			});
			const elapsed = performance.now() - t;
			await new Promise((resolve) => setImmediate(resolve));
			if (run === 0) continue;
			latencies.push(elapsed);
			statements.push(proxy.counter.statements - before);
			if (r.status !== 303 || !String(r.headers.location).includes(`count=${BULK}`)) errors++;
		}
		latencies.sort((a, b) => a - b);
		const p50 = quantile(latencies, 0.5);
		const result = { rps: 1000 / p50, p50, p99: latencies[latencies.length - 1] ?? 0, errors };
		const label = 'bulk';
		if (!first.has(label)) first.set(label, result);
		return {
			name: `POST /admin?/bulk (approve ${BULK} applications, confirmed), ${seeded} apps (${scale}x), ${BULK_RUNS} runs, p99 = worst (vs the same at ${scales[0] ?? 1}x)`,
			...result,
			rss: portal.peakRssMiB(),
			queries: Math.max(...statements),
			baseline: first.get(label),
			target: '< 1 s'
		};
	}
	try {
		const cookie = await signIn(portal.url, account);
		let seeded = 0;
		for (const scale of scales) {
			const started = performance.now();
			await seed(sql, seeded, UNIT * scale, account.address.toLowerCase());
			seeded = UNIT * scale;
			console.error(
				`  admin: ${seeded} applications, ${seeded * EVENTS_PER_APPLICATION} audit rows (seeded in ${((performance.now() - started) / 1000).toFixed(1)} s)`
			);
			// Alternating rounds over the pages; each page's median latency over all its rounds counts.
			/** @typedef {{ latencies: number[], statements: number[], errors: number, bytes: number }} Sample */
			/** @type {Map<string, Sample>} */
			const samples = new Map(PAGES.map(([label]) => [label, { latencies: [], statements: [], errors: 0, bytes: 0 }]));
			/** @param {string} label */
			const sampleOf = (label) => /** @type {Sample} */ (samples.get(label));
			for (const [, path] of PAGES) for (let i = 0; i < 3; i++) await client.get(path, { cookie, accept: 'text/html' }); // warm-up
			for (let round = 0; round < rounds; round++) {
				for (const [label, path] of PAGES) {
					const s = sampleOf(label);
					const end = performance.now() + (seconds * 1000) / PAGES.length;
					for (let n = 0; performance.now() < end || n < 5; n++) {
						const before = proxy.counter.statements;
						const t = performance.now();
						const r = await client.get(path, { cookie, accept: 'text/html' }).catch(() => null);
						s.latencies.push(performance.now() - t);
						if (!r) s.errors++;
						else s.bytes = Buffer.byteLength(r.text);
						await new Promise((resolve) => setImmediate(resolve));
						s.statements.push(proxy.counter.statements - before);
					}
				}
			}
			for (const [label, path] of PAGES) {
				const { latencies, statements, errors, bytes } = sampleOf(label);
				latencies.sort((a, b) => a - b);
				const p50 = quantile(latencies, 0.5);
				// Sequential requests: pages per second is 1 / the median server time (robust to the shared machine's spikes).
				const result = { rps: 1000 / p50, p50, p99: quantile(latencies, 0.99), errors };
				if (!first.has(label)) first.set(label, result);
				rows.push({
					name: `GET ${path} (${label}), ${seeded} apps / ${seeded * EVENTS_PER_APPLICATION} audit rows / ${seeded / NOTE_EVERY} notes (${scale}x), ${(bytes / 1024).toFixed(0)} KiB, sequential (vs same page at ${scales[0] ?? 1}x)`,
					...result,
					rss: portal.peakRssMiB(),
					queries: Math.max(...statements),
					baseline: first.get(label),
					target: 'ratio >= 0.67 (1.5x), SQL <= 3, <= 60 KiB'
				});
			}
			rows.push(await bulkRow(cookie, scale, seeded));
		}
	} finally {
		client.close();
		await portal.stop();
		await proxy.close();
		await sql.end();
	}
	return rows;
}
