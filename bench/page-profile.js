// @ts-check
// One page's server CPU, for a profile: the built portal of a checkout (`--cwd`) on a fresh migrated
// database; one member signs in (and with --apply applies once), then GETs `--path` `--requests` times,
// 4 at a time, as a browser asks a page. Prints the server's CPU ms per request; with BENCH_CPU_PROF=<dir>
// the server writes its profile there (node bench/profile.js <file>).
//
//   node bench/page-profile.js [--cwd <checkout>] [--path /apply] [--apply] [--requests 1500] [--admin]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createServerDatabase } from '../tests/helpers/postgres.js';
import { httpClient, signIn, startPortal, treeCpuMs } from './harness.js';

const { values } = parseArgs({
	options: {
		cwd: { type: 'string', default: '.' },
		path: { type: 'string', default: '/apply' },
		apply: { type: 'boolean', default: false },
		admin: { type: 'boolean', default: false },
		requests: { type: 'string', default: '1500' }
	}
});
const dir = path.resolve(values.cwd);
const REQUESTS = Number(values.requests);
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = await createServerDatabase(adminUrl, { prefix: 'portal_page', migrate: false });
const client = postgres(database.url, { max: 1, onnotice: () => {} });
await migrate(drizzle(client), { migrationsFolder: path.join(dir, 'drizzle') });
await client.end();
const account = privateKeyToAccount(generatePrivateKey());
const portal = await startPortal(
	{ DATABASE_URL: database.url, ...(values.admin ? { ADMIN_ADDRESSES: account.address } : {}) },
	{ cwd: dir }
);
const http = httpClient(portal.url, 4);
try {
	const cookie = await signIn(portal.url, /** @type {any} */ (account));
	if (values.apply) {
		const r = await http.request('POST', '/apply', {
			headers: {
				cookie,
				origin: portal.url,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: new URLSearchParams({
				displayName: 'Member',
				motivation: 'I would like to join because '.repeat(8),
				contact: '@member'
			}).toString()
		});
		if (r.status !== 303) throw new Error(`POST /apply ${r.status}`);
	}
	const get = () => http.request('GET', values.path, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
	for (let i = 0; i < 50; i++) await get(); // warm
	const before = treeCpuMs(portal.pid);
	let next = 0;
	await Promise.all(
		[0, 1, 2, 3].map(async () => {
			for (let n = next++; n < REQUESTS; n = next++) {
				const r = await get();
				if (r.status !== 200) throw new Error(`GET ${values.path}: ${r.status}`);
			}
		})
	);
	console.log(
		`${dir} GET ${values.path}: ${((treeCpuMs(portal.pid) - before) / REQUESTS).toFixed(2)} CPU ms per request`
	);
} finally {
	http.close();
	await portal.stop();
	await database.drop();
}
