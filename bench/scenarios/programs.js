// @ts-check
// Programmes and rounds (#57): the review table and /apply with 20 programmes and 200 rounds against
// the same pages with one programme (what the migration makes), same run. Two databases of their own,
// each seeded with admin.js's 1,000 applications; in the second, 19 more programmes hold 10 or 11 rounds
// each (past, open and upcoming: 200 with membership's one) and every 20th application. Two portals,
// pages measured in alternating rounds, sequential requests (latency is the server's time per page).
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backendsCpu, createBenchDatabase, httpClient, quantile, signIn, startPortal, treeCpuMs } from '../harness.js';
import { seed } from './admin.js';

const APPLICATIONS = 1_000;
const PROGRAMS = 20;
const ROUNDS = 200;

/**
 * 19 programmes beside membership with 199 rounds among them (the first ones one more), a round of each
 * open now, one upcoming and the rest past; every 20th application moved into one of them.
 * @param {import('postgres').Sql} sql
 */
async function manyPrograms(sql) {
	const extra = PROGRAMS - 1;
	const rounds = ROUNDS - 1;
	await sql`insert into programs (slug, name, description)
		select 'programme-' || k, 'Programme ' || k, 'What programme ' || k || ' is for, in a sentence or two.'
		from generate_series(1, ${extra}) k`;
	// Programme k has n = 10 or 11 rounds, 30 days apart and 25 days long: round n-2 is open now, n-1 opens later.
	await sql`insert into rounds (program_id, name, opens_at, closes_at)
		select p.id, 'Round ' || j, now() + make_interval(days => (j - n + 2) * 30 - 10), now() + make_interval(days => (j - n + 2) * 30 + 15)
		from (select id, row_number() over (order by id) as k from programs where slug <> 'membership') p
		cross join lateral (select ${Math.floor(rounds / extra)} + case when p.k <= ${rounds % extra} then 1 else 0 end as n) c
		cross join lateral generate_series(0, c.n - 1) j`;
	await sql`update applications a set program_id = p.id, round_id = (select r.id from rounds r where r.program_id = p.id order by r.opens_at limit 1)
		from (select id, row_number() over (order by id) - 1 as k from programs where slug <> 'membership') p,
			(select id, row_number() over (order by id) as n from applications) s
		where s.id = a.id and s.n % 20 = 0 and p.k = (s.n / 20) % ${extra}`;
	await sql`vacuum (analyze) programs, rounds, applications`;
	const [counts] =
		await sql`select (select count(*) from programs) as programs, (select count(*) from rounds) as rounds`;
	if (Number(counts?.programs) !== PROGRAMS || Number(counts?.rounds) !== ROUNDS)
		throw new Error(`seeded ${counts?.programs} programmes and ${counts?.rounds} rounds`);
}

/** @type {import('../harness.js').Scenario} */
export default async function programs({ adminUrl, engine, seconds, rounds }) {
	if (engine !== 'postgres')
		return [{ name: 'programs: skipped with --pglite (the bench seeds the database over SQL)' }];
	const admin = privateKeyToAccount(generatePrivateKey());
	const member = privateKeyToAccount(generatePrivateKey());
	const databases = [await createBenchDatabase(adminUrl), await createBenchDatabase(adminUrl)];
	/** @type {{ label: string, portal: import('../harness.js').Portal, client: ReturnType<typeof httpClient>, cookies: { admin: string, member: string } }[]} */
	const sides = [];
	try {
		for (const [i, database] of databases.entries()) {
			const sql = postgres(database.url, { max: 1, onnotice: () => {} });
			await seed(sql, 0, APPLICATIONS, admin.address.toLowerCase());
			if (i === 1) await manyPrograms(sql);
			await sql.end();
			const portal = await startPortal({ DATABASE_URL: database.url, ADMIN_ADDRESSES: admin.address });
			sides.push({
				label: i === 0 ? '1 programme, 1 round' : `${PROGRAMS} programmes, ${ROUNDS} rounds`,
				portal,
				client: httpClient(portal.url, 1),
				cookies: { admin: await signIn(portal.url, admin), member: await signIn(portal.url, member) }
			});
		}
		/** @type {[path: string, who: 'admin' | 'member'][]} */
		const pages = [
			['/admin', 'admin'],
			['/apply', 'member']
		];
		/** @type {Map<string, number[]>} */
		const latencies = new Map();
		/** @type {Map<string, number>} */
		const errors = new Map();
		// The work each page costs, whatever else the machine runs: CPU ms of the portal and of its database's
		// backends per request (sequential latency moves with the load of the cores; this much less).
		/** @type {Map<string, { ms: number, requests: number }>} */
		const cpu = new Map();
		const server = postgres(adminUrl, { max: 1, onnotice: () => {} });
		/** @param {typeof sides[number]} side @param {string} name */
		const cpuNow = async (side, name) => {
			let ms = treeCpuMs(side.portal.pid);
			for (const backend of (await backendsCpu(server, name)).values()) ms += backend;
			return ms;
		};
		for (const side of sides)
			for (const [path, who] of pages)
				for (let i = 0; i < 5; i++) await side.client.get(path, { cookie: side.cookies[who], accept: 'text/html' });
		for (let round = 0; round < rounds; round++) {
			for (const [path, who] of pages) {
				for (const side of round % 2 ? [...sides].reverse() : sides) {
					const key = `${path} ${side.label}`;
					const list = latencies.get(key) ?? [];
					latencies.set(key, list);
					const name = /** @type {string} */ (databases[sides.indexOf(side)]?.name);
					const before = await cpuNow(side, name);
					const end = performance.now() + (seconds * 1000) / (pages.length * sides.length);
					let n = 0;
					for (; performance.now() < end || n < 5; n++) {
						const t = performance.now();
						const r = await side.client.get(path, { cookie: side.cookies[who], accept: 'text/html' }).catch(() => null);
						list.push(performance.now() - t);
						if (!r || r.status !== 200) errors.set(key, (errors.get(key) ?? 0) + 1);
					}
					const spent = cpu.get(key) ?? { ms: 0, requests: 0 };
					cpu.set(key, { ms: spent.ms + (await cpuNow(side, name)) - before, requests: spent.requests + n });
				}
			}
		}
		/** @type {import('../harness.js').Row[]} */
		const rows = [];
		for (const [path] of pages) {
			/** @type {import('../harness.js').Rate | undefined} */
			let baseline;
			for (const side of sides) {
				const key = `${path} ${side.label}`;
				const list = (latencies.get(key) ?? []).sort((a, b) => a - b);
				const p50 = quantile(list, 0.5);
				const rate = { rps: 1000 / p50, p50, p99: quantile(list, 0.99), errors: errors.get(key) ?? 0 };
				baseline ??= rate;
				rows.push({
					name: `GET ${path}, ${APPLICATIONS} applications, ${side.label}, sequential (vs ${sides[0]?.label})`,
					...rate,
					rss: side.portal.peakRssMiB(),
					baseline,
					target: 'ratio >= 0.91 (within 1.1x)'
				});
			}
			/** @type {import('../harness.js').Rate | undefined} */
			let cpuBaseline;
			for (const side of sides) {
				const spent = cpu.get(`${path} ${side.label}`) ?? { ms: 0, requests: 1 };
				const perRequest = spent.ms / Math.max(1, spent.requests);
				// Requests per CPU second (portal and database together): the ratio is the baseline's CPU per page over this side's.
				const rate = { rps: perRequest > 0 ? 1000 / perRequest : 0, p50: perRequest, p99: perRequest, errors: 0 };
				cpuBaseline ??= rate;
				rows.push({
					name: `GET ${path}, ${side.label}: CPU ms per request, portal + PostgreSQL (p50 column; vs ${sides[0]?.label})`,
					...rate,
					baseline: cpuBaseline,
					target: 'ratio >= 0.91 (within 1.1x)'
				});
			}
		}
		await server.end();
		return rows;
	} finally {
		for (const side of sides) {
			side.client.close();
			await side.portal.stop();
		}
		for (const database of databases) await database.drop();
	}
}
