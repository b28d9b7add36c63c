// @ts-check
// The community's own questions (#26). Two figures, each against a baseline in the same run:
// 1. POST /apply with a form of 20 questions (every type, all answered) against the built-in form
//    alone; rounds alternate the two forms (a new version written by SQL, then 1.1 s for the
//    portal's one-second cache), each submission by a member whose earlier application is deleted
//    (untimed) so that the limit and the one-active rule never refuse it.
// 2. The review table searched by a text answer (`q` matching one application's answer) at 100x data
//    against 1x, with admin.js's data (1x = 1,000 applications) and two answers on every application.
import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { countingProxy, httpClient, quantile, signIn, startPortal } from '../harness.js';
import { seed } from './admin.js';

const MEMBERS = 5;
const SUBMISSIONS_PER_ROUND = 40;
const TYPES = ['short_text', 'long_text', 'single_choice', 'multiple_choice', 'url', 'number', 'yes_no'];

/** 20 questions cycling through the seven types, and a full set of answers to them. */
function twentyQuestions() {
	/** @type {Record<string, unknown>[]} */
	const questions = [];
	/** @type {[string, string][]} */
	const answers = [];
	for (let i = 0; i < 20; i++) {
		const type = TYPES[i % TYPES.length];
		const key = `q${i}`;
		/** @type {Record<string, unknown>} */
		const q = { key, label: `Question ${i}?`, type, required: true };
		if (type === 'single_choice' || type === 'multiple_choice') q.options = ['Docs', 'Infra', 'Events'];
		if (type === 'number') Object.assign(q, { min: 0, max: 100 });
		questions.push(q);
		const field = `answers.${key}`;
		if (type === 'short_text') answers.push([field, 'Lisbon']);
		else if (type === 'long_text') answers.push([field, 'I maintain a small library. '.repeat(20)]);
		else if (type === 'single_choice') answers.push([field, 'Infra']);
		else if (type === 'multiple_choice') answers.push([field, 'Docs'], [field, 'Events']);
		else if (type === 'url') answers.push([field, 'https://example.org/me']);
		else if (type === 'number') answers.push([field, '12']);
		else answers.push([field, 'on']);
	}
	return { questions, answers };
}

/** @type {import('../harness.js').Scenario} */
export default async function questions({ databaseUrl, engine, scales, rounds }) {
	if (engine !== 'postgres')
		return [{ name: 'questions: skipped with --pglite (the bench writes form versions over SQL)' }];
	const admin = privateKeyToAccount(generatePrivateKey());
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	const proxy = await countingProxy(databaseUrl);
	const portal = await startPortal({ DATABASE_URL: proxy.url, ADMIN_ADDRESSES: admin.address });
	const client = httpClient(portal.url, 1);
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	const { questions: twenty, answers } = twentyQuestions();
	try {
		// 1. Submission cost.
		const members = [];
		for (let i = 0; i < MEMBERS; i++) {
			const account = privateKeyToAccount(generatePrivateKey());
			members.push({ address: account.address.toLowerCase(), cookie: await signIn(portal.url, account) });
		}
		/** @type {Record<'none' | 'twenty', { latencies: number[], statements: number[], errors: number }>} */
		const samples = {
			none: { latencies: [], statements: [], errors: 0 },
			twenty: { latencies: [], statements: [], errors: 0 }
		};
		for (let round = 0; round <= rounds; round++) {
			for (const form of /** @type {const} */ (['none', 'twenty'])) {
				await sql`insert into application_forms (created_by, questions) values (${admin.address.toLowerCase()}, ${sql.json(/** @type {any} */ (form === 'twenty' ? twenty : []))})`;
				await new Promise((resolve) => setTimeout(resolve, 1100));
				for (let n = 0; n < SUBMISSIONS_PER_ROUND; n++) {
					const member = /** @type {{ address: string, cookie: string }} */ (members[n % MEMBERS]);
					await sql`delete from application_revisions where application_id in (select id from applications where applicant_address = ${member.address})`;
					await sql`delete from applications where applicant_address = ${member.address}`;
					await sql`delete from rate_limit_counters where subject = ${member.address}`;
					const body = new URLSearchParams([
						['displayName', `Member ${n}`],
						['motivation', 'I would like to join because '.repeat(8)],
						['contact', '@member'],
						...(form === 'twenty' ? answers : [])
					]).toString();
					const before = proxy.counter.statements;
					const t = performance.now();
					const r = await client.request('POST', '/apply', {
						headers: {
							cookie: member.cookie,
							origin: portal.url,
							accept: 'text/html',
							'content-type': 'application/x-www-form-urlencoded'
						},
						body
					});
					const elapsed = performance.now() - t;
					await new Promise((resolve) => setImmediate(resolve));
					if (round === 0) continue; // warm-up round
					samples[form].latencies.push(elapsed);
					samples[form].statements.push(proxy.counter.statements - before);
					if (r.status !== 303) samples[form].errors++;
				}
			}
		}
		/** @param {'none' | 'twenty'} form */
		const rateOf = (form) => {
			const latencies = [...samples[form].latencies].sort((a, b) => a - b);
			const p50 = quantile(latencies, 0.5);
			return { rps: 1000 / p50, p50, p99: quantile(latencies, 0.99), errors: samples[form].errors };
		};
		const baseline = rateOf('none');
		rows.push({
			name: `POST /apply, built-in form only, ${rounds} alternating rounds x ${SUBMISSIONS_PER_ROUND}, sequential`,
			...baseline,
			queries: Math.max(...samples.none.statements)
		});
		rows.push({
			name: `POST /apply, 20 questions all answered (vs the built-in form in the same rounds)`,
			...rateOf('twenty'),
			queries: Math.max(...samples.twenty.statements),
			baseline,
			target: 'time <= 1.2x (ratio >= 0.83)'
		});

		// 2. Search by answer at 1x and 100x.
		const cookie = await signIn(portal.url, admin);
		await sql`delete from application_revisions`;
		await sql`delete from applications`;
		const ADDRESS_777 = createHash('sha256').update('777').digest('hex').slice(0, 40);
		const path = `/admin?q=${encodeURIComponent(`Town ${ADDRESS_777.slice(0, 12)}`)}`;
		/** @type {import('../harness.js').Rate | undefined} */
		let first;
		let seeded = 0;
		for (const scale of scales) {
			await seed(sql, seeded, 1000 * scale, admin.address.toLowerCase());
			seeded = 1000 * scale;
			// Every application answers two questions; the town names it by its address, so one matches.
			await sql`update applications set answers = jsonb_build_object('city', 'Town ' || substr(applicant_address, 3, 20), 'skills', jsonb_build_array('Docs', 'SQL')) where answers = '{}'::jsonb`;
			await sql`vacuum (analyze) applications`;
			for (let i = 0; i < 5; i++) await client.get(path, { cookie, accept: 'text/html' });
			/** @type {number[]} */
			const latencies = [];
			/** @type {number[]} */
			const statements = [];
			let errors = 0;
			for (let n = 0; n < 30 * rounds; n++) {
				const before = proxy.counter.statements;
				const t = performance.now();
				const r = await client.get(path, { cookie, accept: 'text/html' }).catch(() => null);
				latencies.push(performance.now() - t);
				await new Promise((resolve) => setImmediate(resolve));
				statements.push(proxy.counter.statements - before);
				if (!r || !r.text.includes('/admin/applications/')) errors++;
			}
			latencies.sort((a, b) => a - b);
			const p50 = quantile(latencies, 0.5);
			const result = { rps: 1000 / p50, p50, p99: quantile(latencies, 0.99), errors };
			first ??= result;
			rows.push({
				name: `GET /admin?q=<a text answer of one application>, ${seeded} apps with answers (${scale}x), sequential (vs the same at ${scales[0] ?? 1}x)`,
				...result,
				rss: portal.peakRssMiB(),
				queries: Math.max(...statements),
				baseline: first,
				target: 'time <= 1.5x (ratio >= 0.67)'
			});
		}
	} finally {
		client.close();
		await portal.stop();
		await proxy.close();
		await sql.end();
	}
	return rows;
}
