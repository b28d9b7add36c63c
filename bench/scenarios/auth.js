// @ts-check
// GET /api/auth/me with a valid session cookie against the same endpoint without one (the cheapest
// JSON answer the server gives: no cookie to read, no database), in alternating rounds (the machine is
// shared, so the median round of each counts).
import { privateKeyToAccount } from 'viem/accounts';
import { alternate, httpClient, loop, signIn, startPortal } from '../harness.js';

// A well-known development key; it holds nothing.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const CONNECTIONS = 32;

/** @type {import('../harness.js').Scenario} */
export default async function auth({ databaseUrl, engine, seconds, rounds }) {
	const portal = await startPortal(engine === 'postgres' ? { DATABASE_URL: databaseUrl } : {});
	const client = httpClient(portal.url, CONNECTIONS);
	try {
		const cookie = await signIn(portal.url, account);
		const options = { seconds, concurrency: CONNECTIONS };
		const anonymous = () => loop(() => client.get('/api/auth/me'), options);
		const me = () => loop(() => client.get('/api/auth/me', { cookie }), options);
		await loop(() => client.get('/api/auth/me'), { ...options, seconds: 2 }); // warm-up
		await loop(() => client.get('/api/auth/me', { cookie }), { ...options, seconds: 2 });
		const m = await alternate(rounds, { anonymous, me });
		return [
			{
				name: `GET /api/auth/me, valid cookie, ${CONNECTIONS} conns (vs anonymous GET /api/auth/me)`,
				...m.me,
				rss: portal.peakRssMiB(),
				baseline: m.anonymous,
				target: 'ratio >= 0.8'
			}
		];
	} finally {
		client.close();
		await portal.stop();
	}
}
