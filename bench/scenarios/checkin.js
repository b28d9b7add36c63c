// @ts-check
// A form action under its limit: check-ins by many signed-in members (POST /checkin, form-encoded,
// with an Origin header as a browser sends it) against a bare insert into check_ins from this
// process. Both go through the same statement-counting proxy in front of the same database, so
// "the same pool" here means the same server, database and proxy, not the portal's own pool object.
import { existsSync } from 'node:fs';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { alternate, countingProxy, httpClient, loop, signIn, startPortal } from '../harness.js';

const CONNECTIONS = 16;
const MEMBERS = 400; // the limit is 20 check-ins a day per member: room for 8,000 before anyone hits it

/** @type {import('../harness.js').Scenario} */
export default async function checkin({ databaseUrl, engine, seconds, rounds }) {
	if (!existsSync('src/routes/checkin'))
		return [{ name: 'check-in form action: skipped (no /checkin route on this branch)' }];
	const pg = engine === 'postgres';
	const proxy = pg ? await countingProxy(databaseUrl) : null;
	// On Postgres, members sign in through the real endpoints on a first server process (same database
	// and session password), so the measured process's CPU profile and peak RSS are the check-ins' alone.
	// PGlite lives inside one process, so there they sign in on the measured one and no baseline runs.
	/** @type {string[]} */
	const cookies = [];
	/** @type {string[]} */
	const addresses = [];
	const portal = pg ? null : await startPortal({});
	const signer = portal ?? (await startPortal({ DATABASE_URL: databaseUrl }, { profile: false }));
	try {
		await Promise.all(
			Array.from({ length: 8 }, async (_, w) => {
				for (let i = w; i < MEMBERS; i += 8) {
					const account = privateKeyToAccount(generatePrivateKey());
					cookies.push(await signIn(signer.url, account));
					addresses.push(account.address.toLowerCase());
				}
			})
		);
	} catch (err) {
		await signer.stop();
		await proxy?.close();
		throw err;
	}
	if (pg) await signer.stop();
	const server = portal ?? (await startPortal({ DATABASE_URL: proxy?.url }));
	const client = httpClient(server.url, CONNECTIONS);
	const sql = proxy ? postgres(proxy.url, { max: CONNECTIONS, onnotice: () => {} }) : null;
	try {
		let next = 0;
		const post = async () => {
			const n = next++;
			const r = await client.request('POST', '/checkin', {
				headers: {
					origin: server.url,
					accept: 'text/html',
					'content-type': 'application/x-www-form-urlencoded',
					cookie: cookies[n % MEMBERS] ?? ''
				},
				body: `note=${encodeURIComponent(`bench check-in ${n}`)}`
			});
			if (r.status !== 303) throw new Error(`checkin ${r.status}`);
		};
		let k = 0;
		const insert = (/** @type {import('postgres').Sql} */ db) =>
			db`insert into check_ins (member_address, note) values (${addresses[k++ % MEMBERS] ?? ''}, ${'bench bare insert'}) returning *`;
		const options = { seconds, concurrency: CONNECTIONS };
		// Warm-up (the first request also runs the server's one-time schema check), then statements per
		// check-in, counted on the wire over 20 sequential requests.
		for (let i = 0; i < 5; i++) await post();
		await new Promise((r) => setTimeout(r, 50));
		const before = proxy?.counter.statements ?? 0;
		for (let i = 0; i < 20; i++) await post();
		await new Promise((r) => setTimeout(r, 50));
		const queries = proxy ? (proxy.counter.statements - before) / 20 : undefined;
		/** @type {Record<string, () => Promise<import('../harness.js').Rate>>} */
		const runs = {};
		if (sql) runs.bare = () => loop(() => insert(sql), options);
		runs.form = () => loop(post, options);
		const m = await alternate(rounds, runs);
		const vs = sql
			? ' (vs bare insert into check_ins from the bench process)'
			: ' (PGlite: no bare insert from another process)';
		return [
			{
				name: `POST /checkin form action, ${MEMBERS} members, ${CONNECTIONS} conns${vs}`,
				...m.form,
				rss: server.peakRssMiB(),
				queries,
				baseline: m.bare,
				target: 'none set'
			}
		];
	} finally {
		client.close();
		await server.stop();
		await sql?.end();
		await proxy?.close();
	}
}
