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

export default async function checkin({ databaseUrl, engine, seconds, rounds }) {
	if (!existsSync('src/routes/checkin')) return [{ name: 'check-in form action: skipped (no /checkin route on this branch)' }];
	const proxy = engine === 'postgres' ? await countingProxy(databaseUrl) : null;
	const portal = await startPortal(proxy ? { DATABASE_URL: proxy.url } : {});
	const client = httpClient(portal.url, CONNECTIONS);
	const sql = proxy ? postgres(proxy.url, { max: CONNECTIONS, onnotice: () => {} }) : null;
	try {
		const cookies = [];
		const addresses = [];
		await Promise.all(
			Array.from({ length: 8 }, async (_, w) => {
				for (let i = w; i < MEMBERS; i += 8) {
					const account = privateKeyToAccount(generatePrivateKey());
					cookies.push(await signIn(portal.url, account));
					addresses.push(account.address.toLowerCase());
				}
			})
		);
		let next = 0;
		const post = async () => {
			const n = next++;
			const r = await client.request('POST', '/checkin', {
				headers: { origin: portal.url, 'content-type': 'application/x-www-form-urlencoded', cookie: cookies[n % MEMBERS] },
				body: `note=${encodeURIComponent(`bench check-in ${n}`)}`
			});
			if (r.status !== 303) throw new Error(`checkin ${r.status}`);
		};
		let k = 0;
		const insert = () => sql`insert into check_ins (member_address, note) values (${addresses[k++ % MEMBERS]}, ${'bench bare insert'}) returning *`;
		const options = { seconds, concurrency: CONNECTIONS };
		const runs = { form: () => loop(post, options) };
		if (sql) runs.bare = () => loop(insert, options);
		// Statements per check-in, counted on the wire over 20 sequential requests.
		let queries;
		if (proxy) {
			const before = proxy.counter.statements;
			for (let i = 0; i < 20; i++) await post();
			await new Promise((r) => setTimeout(r, 50));
			queries = (proxy.counter.statements - before) / 20;
		}
		const m = await alternate(rounds, runs);
		return [{ name: `POST /checkin form action, ${MEMBERS} members, ${CONNECTIONS} conns (vs bare insert into check_ins from the bench process)`, ...m.form, rss: portal.peakRssMiB(), queries, baseline: m.bare, target: 'ratio >= 0.3' }];
	} finally {
		client.close();
		await portal.stop();
		await sql?.end();
		await proxy?.close();
	}
}
