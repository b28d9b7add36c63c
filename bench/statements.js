// @ts-check
// The statements one request sends, with their texts: the built portal of a checkout behind the bench's
// counting proxy, on a fresh migrated database (bench/README.md, "Other bench commands").
//
//   node bench/statements.js [--cwd <checkout>] [--path /apply] [--apply] [--admin] [--journey]
//
// With --journey: a launch-day member's requests instead (bench/launch.js: GET /api/auth/nonce, POST
// /api/auth/verify, POST /apply), each request's statements, of a second member (the first warms caches).
//
// One member signs in (and with --apply applies once, the built-in questions), then GETs `--path` three
// times as a browser would; the statements of the third (caches warm, as in a soak) are printed. With --admin
// the member is an admin (ADMIN_ADDRESSES), for the admin's pages.
// Also POST /checkin (a 303) twice, the statements of the second.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createServerDatabase } from '../tests/helpers/postgres.js';
import { countingProxy, httpClient, signIn, siweMessage, startPortal } from './harness.js';

const { values } = parseArgs({
	options: {
		cwd: { type: 'string', default: '.' },
		path: { type: 'string', default: '/apply' },
		apply: { type: 'boolean', default: false },
		admin: { type: 'boolean', default: false },
		journey: { type: 'boolean', default: false }
	}
});
const dir = path.resolve(values.cwd);
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = await createServerDatabase(adminUrl, { prefix: 'portal_statements', migrate: false });
const client = postgres(database.url, { max: 1, onnotice: () => {} });
await migrate(drizzle(client), { migrationsFolder: path.join(dir, 'drizzle') });
await client.end();
const proxy = await countingProxy(database.url, { texts: true });
const member = privateKeyToAccount(generatePrivateKey());
const portal = await startPortal(
	{ DATABASE_URL: proxy.url, ...(values.admin ? { ADMIN_ADDRESSES: member.address } : {}) },
	{ cwd: dir, profile: false }
);
const http = httpClient(portal.url, 2);
/** @param {{ headers: import('node:http').IncomingHttpHeaders }} r */
const cookieOf = (r) => String(r.headers['set-cookie']?.[0]).split(';')[0] ?? '';
/** Waits for the previous request's statements to settle, sends, and prints the statements it made. @param {string} label @param {() => Promise<import('./harness.js').Answer>} send */
const counted = async (label, send) => {
	await new Promise((r) => setTimeout(r, 200));
	proxy.counter.texts.length = 0;
	const before = proxy.counter.statements;
	const r = await send();
	await new Promise((r) => setTimeout(r, 200));
	console.log(
		`${label}: ${r.status}, ${Buffer.byteLength(r.text)} bytes, ${proxy.counter.statements - before} statements`
	);
	for (const t of proxy.counter.texts) console.log(`  - ${t.replace(/\s+/g, ' ').slice(0, 400)}`);
	return r;
};
/** @param {string} text the body of GET /api/auth/nonce */
const nonceOf = (text) => {
	/** @type {unknown} */
	const parsed = JSON.parse(text);
	return /** @type {{ nonce: string }} */ (parsed).nonce;
};
/** A launch-day member (bench/launch.js) on this portal; `show` prints each request's statements. @param {boolean} show */
const journey = async (show) => {
	const account = privateKeyToAccount(generatePrivateKey());
	const run = show
		? counted
		: (/** @type {string} */ _, /** @type {() => Promise<import('./harness.js').Answer>} */ send) => send();
	const nonce = await run('GET /api/auth/nonce', () => http.request('GET', '/api/auth/nonce'));
	const message = siweMessage(portal.url, account.address, nonceOf(nonce.text));
	const body = JSON.stringify({ message, signature: await account.signMessage({ message }) });
	const verify = await run('POST /api/auth/verify', () =>
		http.request('POST', '/api/auth/verify', {
			headers: { 'content-type': 'application/json', cookie: cookieOf(nonce) },
			body
		})
	);
	const form = new URLSearchParams({
		displayName: 'Member',
		motivation: 'I would like to join because '.repeat(8),
		contact: '@member'
	});
	const apply = await run('POST /apply', () =>
		http.request('POST', '/apply', {
			headers: {
				cookie: cookieOf(verify),
				origin: portal.url,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			},
			body: form.toString()
		})
	);
	if (apply.status !== 303) throw new Error(`POST /apply ${apply.status}`);
};
try {
	if (values.journey) {
		await journey(false);
		await journey(true);
		process.exitCode = 0;
	} else {
		const cookie = await signIn(portal.url, /** @type {any} */ (member));
		/** @param {string} p @param {Record<string, string>} form */
		const post = (p, form) =>
			http.request('POST', p, {
				headers: {
					cookie,
					origin: portal.url,
					accept: 'text/html',
					'content-type': 'application/x-www-form-urlencoded'
				},
				body: new URLSearchParams(form).toString()
			});
		if (values.apply) {
			const r = await post('/apply', {
				displayName: 'Member',
				motivation: 'I would like to join because '.repeat(8),
				contact: '@member'
			});
			if (r.status !== 303) throw new Error(`POST /apply ${r.status}`);
		}
		/** @param {string} label @param {() => Promise<{ status: number, text: string }>} send @param {number} warm */
		const show = async (label, send, warm) => {
			for (let i = 0; i < warm; i++) await send();
			await new Promise((r) => setTimeout(r, 200)); // background statements of the previous request settle
			proxy.counter.texts.length = 0;
			const before = proxy.counter.statements;
			const r = await send();
			await new Promise((r) => setTimeout(r, 200));
			console.log(
				`${label}: ${r.status}, ${Buffer.byteLength(r.text)} bytes, ${proxy.counter.statements - before} statements`
			);
			if (process.env.STATEMENTS_BODY) console.log(r.text);
			for (const t of proxy.counter.texts) console.log(`  - ${t.replace(/\s+/g, ' ').slice(0, 400)}`);
		};
		await show(
			`GET ${values.path}`,
			() => http.request('GET', values.path, { headers: { cookie, 'sec-fetch-site': 'same-origin' } }),
			2
		);
		await show('POST /checkin', () => post('/checkin', { note: 'statements' }), 1);
	}
} finally {
	http.close();
	await portal.stop();
	await proxy.close();
	await database.drop();
}
