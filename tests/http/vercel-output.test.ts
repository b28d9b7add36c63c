// The Vercel build end to end: `ADAPTER=vercel` output served as the platform serves it (static files
// and config.json's routes and headers; each request's function in a fresh process that ends after it,
// so no worker lives between requests), with the contract checks that matter there. Webhooks reach a
// receiver on loopback through the first attempt after a response (waitUntil) and the cron endpoint.
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	utimesSync,
	writeFileSync
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type addonType from 'secp256k1/bindings.js';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNonces } from '../helpers/csp';
import { serverUrl } from '../helpers/db';
import { getPage, postForm } from '../helpers/forms';
import { parseJson, readJson } from '../helpers/json';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { Receiver, newSecret, verified } from '../helpers/receiver';
import { TEST_SESSION_PASSWORD } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { vercelBuild } from '../helpers/vercel-build';
import { VercelOutput } from '../helpers/vercel-output';

const CRON_SECRET = 'cron-secret-for-the-vercel-test-0123';
let dir: string;

beforeAll(async () => {
	dir = await vercelBuild();
}, 600_000);

describe('the Vercel build output', () => {
	it('asks Vercel Cron for the webhook run every minute, in a function whose limit is above its budget', () => {
		const config = parseJson<{ crons?: unknown }>(readFileSync(path.join(dir, 'config.json'), 'utf8'));
		expect(config.crons).toEqual([{ path: '/api/cron/webhooks', schedule: '* * * * *' }]);
		const cron = path.join(dir, 'functions', 'api', 'cron', 'webhooks.func', '.vc-config.json');
		expect(parseJson<{ maxDuration?: number }>(readFileSync(cron, 'utf8')).maxDuration).toBe(60);
	});

	it('carries tiny-secp256k1 with its WebAssembly in every function that has it, and it loads there', async () => {
		// Vercel's file tracer copies the package's JavaScript but cannot see the .wasm it reads (deploy/adapter.js
		// addUntracedFiles); without it sign-in would fall back to viem's slower recovery (decision 0035).
		const functions = readdirSync(path.join(dir, 'functions'), { recursive: true, withFileTypes: true })
			.filter((e) => e.isDirectory() && e.name.endsWith('.func'))
			.map((e) => path.join(e.parentPath, e.name))
			.filter((fn) => existsSync(path.join(fn, 'node_modules', 'tiny-secp256k1', 'lib', 'index.js')));
		expect(functions.length).toBeGreaterThan(0);
		for (const fn of functions)
			expect(existsSync(path.join(fn, 'node_modules', 'tiny-secp256k1', 'lib', 'secp256k1.wasm')), fn).toBe(true);
		const lib = (await import(
			pathToFileURL(path.join(functions[0]!, 'node_modules', 'tiny-secp256k1', 'lib', 'index.js')).href
		)) as { isPoint(p: Uint8Array): boolean };
		expect(
			lib.isPoint(Buffer.from(`02${'79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'}`, 'hex'))
		).toBe(true);
	});

	it('carries secp256k1 with its prebuilt binary in every function that has it, and it recovers there', () => {
		// The native build of libsecp256k1 goes first (decision 0056); Vercel's file tracer follows node-gyp-build
		// to the binary of the platform it builds on, which is the one its functions run on (linux-x64, glibc).
		const functions = readdirSync(path.join(dir, 'functions'), { recursive: true, withFileTypes: true })
			.filter((e) => e.isDirectory() && e.name.endsWith('.func'))
			.map((e) => path.join(e.parentPath, e.name))
			.filter((fn) => existsSync(path.join(fn, 'node_modules', 'secp256k1', 'bindings.js')));
		expect(functions.length).toBeGreaterThan(0);
		for (const fn of functions)
			expect(
				existsSync(path.join(fn, 'node_modules', 'secp256k1', 'prebuilds', 'linux-x64', 'secp256k1.glibc.node')),
				fn
			).toBe(true);
		// The portal's declaration of the addon (src/lib/server/auth/secp256k1.d.ts), and what the test signs with.
		const addon = createRequire(path.join(functions[0]!, 'index.js'))('secp256k1/bindings.js') as typeof addonType & {
			ecdsaSign(hash: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
			publicKeyCreate(key: Uint8Array, compressed: boolean): Uint8Array;
		};
		const key = Buffer.alloc(32, 7);
		const hash = Buffer.alloc(32, 9);
		const { signature, recid } = addon.ecdsaSign(hash, key);
		expect(Buffer.from(addon.ecdsaRecover(signature, recid, hash, false))).toEqual(
			Buffer.from(addon.publicKeyCreate(key, false))
		);
	});

	it('refuses the embedded database with a clear message: a function has no lasting disk', async () => {
		const output = await new VercelOutput(dir, {
			SESSION_PASSWORD: TEST_SESSION_PASSWORD,
			SIWE_ALLOWED_DOMAINS: 'portal.example'
		}).start();
		try {
			const response = await fetch(`${output.url}/healthz`);
			expect(response.status).toBe(500);
			await output.settled();
			expect(output.logs).toMatch(/DATABASE_URL: is required on Vercel: its functions have no lasting disk/);
		} finally {
			await output.stop();
		}
	});
});

// Every request starts a function process of its own (seconds each on a loaded machine): room for that.
describe.runIf(serverUrl)('the Vercel build on a Postgres server', { timeout: 120_000 }, () => {
	const applicant = privateKeyToAccount(generatePrivateKey());
	const admin = privateKeyToAccount(generatePrivateKey());
	const secret = newSecret();
	let database: ServerDatabase;
	let sql: postgres.Sql;
	let receiver: Receiver;
	let output: VercelOutput;
	let cookie: string;
	const filesDir = mkdtempSync(path.join(tmpdir(), 'portal-vercel-files-'));

	beforeAll(async () => {
		database = await createServerDatabase(serverUrl!);
		sql = postgres(database.url, { max: 1, onnotice: () => {} });
		receiver = await new Receiver().start();
		output = await new VercelOutput(dir, {}).start();
		output.env = {
			SESSION_PASSWORD: TEST_SESSION_PASSWORD,
			SIWE_ALLOWED_DOMAINS: new URL(output.url).host,
			DATABASE_URL: database.url,
			ADMIN_ADDRESSES: admin.address,
			WEBHOOK_URLS: receiver.url,
			WEBHOOK_SECRET: secret,
			WEBHOOK_TIMEOUT_SECONDS: '2',
			CRON_SECRET,
			FILES_DIR: filesDir
		};
	}, 60_000);
	afterAll(async () => {
		await output?.stop();
		await receiver?.stop();
		await sql?.end();
		await database?.drop();
		rmSync(filesDir, { recursive: true, force: true });
	});

	it('pages carry the security headers (each rendered per request: the community’s look is read each time)', async () => {
		const home = await fetch(`${output.url}/`);
		const apply = await getPage(`${output.url}/apply`);
		expect(home.status).toBe(200);
		// The home page runs no inline script (it does not hydrate, issue 61): its policy names no nonce, and allows none.
		expect(home.headers.get('content-security-policy')).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
		expect(apply.status).toBe(401);
		expect(apply.headers.get('content-security-policy')).toMatch(/script-src 'self' 'nonce-[^']+'/);
		expect(apply.headers.get('cache-control')).toBe('private, no-store');
		for (const headers of [home.headers, apply.headers]) {
			expect(headers.get('content-security-policy')).toContain("object-src 'none'");
			expect(headers.get('content-security-policy')).not.toContain("'unsafe-inline' 'self'");
			expect(headers.get('x-content-type-options')).toBe('nosniff');
			expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
		}
	});

	it('signs in with a wallet and keeps the session across functions', async () => {
		cookie = await signIn(output.url, applicant);
		const me = await fetch(`${output.url}/api/auth/me`, { headers: { cookie } });
		expect(await readJson(me)).toEqual({ address: applicant.address, isAdmin: false });
		// Recovered by libsecp256k1: the fallback to viem would have said so in the function's log.
		await output.settled();
		expect(output.logs).not.toMatch(/libsecp256k1 \(tiny-secp256k1\) could not be loaded/);
	});

	it('apply: the application is stored, and its webhook is sent right after the response (waitUntil)', async () => {
		const submitted = await postForm(`${output.url}/apply`, { displayName: 'Ada', motivation: 'Build' }, { cookie });
		expect(submitted.status).toBe(303);
		const [row] = await sql<{ display_name: string }[]>`select display_name from applications`;
		expect(row?.display_name).toBe('Ada');
		const [request] = await receiver.until((r) => r.length >= 1);
		expect(verified(secret, request!)).toMatchObject({ type: 'application.submitted', data: { displayName: 'Ada' } });
		await output.settled();
		expect(await sql`select status from webhook_deliveries`).toEqual([{ status: 'delivered' }]);
	});

	it('hides /admin from a member: the page of an unknown path', async () => {
		const [hidden, unknown] = await Promise.all([
			getPage(`${output.url}/admin`, cookie),
			getPage(`${output.url}/no-such-page`, cookie)
		]);
		expect(hidden.status).toBe(404);
		expect(withoutNonces(hidden.body)).toBe(withoutNonces(unknown.body));
	});

	it('the cron endpoint: hidden without CRON_SECRET, and it delivers what waits in the outbox', async () => {
		// The receiver is down for the first attempt after the response: the event waits for the cron run.
		receiver.received.length = 0;
		receiver.respond = (_, n) => (n === 0 ? 503 : 204);
		const checkIn = await postForm(`${output.url}/checkin`, { note: 'hello from Vercel' }, { cookie });
		expect(checkIn.status).toBe(303);
		await output.settled();
		const [waiting] = await sql<{ status: string; attempts: number }[]>`
			select status, attempts from webhook_deliveries where event_type = 'checkin.created'`;
		expect(waiting).toMatchObject({ status: 'pending', attempts: 1 });
		await sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending'`;

		const [unknown, ...hidden] = await Promise.all([
			getPage(`${output.url}/api/cron/no-such-route`),
			...[undefined, 'Bearer wrong-secret-of-some-length', CRON_SECRET].map((authorization) =>
				fetch(`${output.url}/api/cron/webhooks`, {
					headers: authorization ? { authorization, accept: 'text/html' } : { accept: 'text/html' }
				})
			)
		]);
		for (const response of hidden) {
			expect(response.status).toBe(404);
			expect(withoutNonces(await response.text())).toBe(withoutNonces(unknown.body));
		}
		const run = await fetch(`${output.url}/api/cron/webhooks`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
		expect(run.status).toBe(200);
		expect(await readJson(run)).toMatchObject({ claimed: 1, delivered: 1, budgetSpent: false });
		expect(receiver.received.map((r) => verified(secret, r).type)).toEqual(['checkin.created', 'checkin.created']);
		const [delivered] = await sql<{ status: string }[]>`
			select status from webhook_deliveries where event_type = 'checkin.created'`;
		expect(delivered?.status).toBe('delivered');
	});

	it('the cron endpoint sweeps orphaned files once an hour, however many runs overlap', async () => {
		// Bytes no row references, written two hours ago (a crash between them and their row), a temporary of
		// an upload cut off as long ago, and bytes just written (an upload under way): only the old two go.
		const hours = (n: number) => new Date(Date.now() - n * 60 * 60 * 1000);
		const stored = (sha256: string, when: Date) => {
			const file = path.join(filesDir, sha256.slice(0, 2), sha256);
			mkdirSync(path.dirname(file), { recursive: true });
			writeFileSync(file, 'orphan');
			utimesSync(file, when, when);
			return file;
		};
		const old = stored('a'.repeat(64), hours(2));
		const fresh = stored('b'.repeat(64), new Date());
		const temporary = path.join(filesDir, '.incoming', 'c'.repeat(24));
		mkdirSync(path.dirname(temporary), { recursive: true });
		writeFileSync(temporary, 'cut off');
		utimesSync(temporary, hours(2), hours(2));

		const run = () =>
			fetch(`${output.url}/api/cron/webhooks`, { headers: { authorization: `Bearer ${CRON_SECRET}` } }).then(
				async (r) => ({ status: r.status, body: await readJson<{ files: unknown }>(r) })
			);
		// The runs of the test above swept this hour already (nothing there then): as if that hour had passed.
		await sql`delete from rate_limit_counters where subject = 'portal' and action = 'files-sweep'`;
		// Two runs at once (Vercel may start a run while the last one goes on): exactly one sweeps.
		const runs = await Promise.all([run(), run()]);
		expect(runs.map((r) => r.status)).toEqual([200, 200]);
		expect(runs.map((r) => r.body.files).sort()).toEqual([{ files: 1, temporaries: 1 }, null]);
		expect([existsSync(old), existsSync(temporary), existsSync(fresh)]).toEqual([false, false, true]);
		// Within the hour, no run sweeps again, even with old orphans back.
		stored('d'.repeat(64), hours(2));
		expect((await run()).body.files).toBeNull();
		expect(existsSync(path.join(filesDir, 'dd', 'd'.repeat(64)))).toBe(true);
		// The hour over (its claim in the database expired): the next run sweeps.
		await sql`update rate_limit_counters set window_ends_at = now() where subject = 'portal' and action = 'files-sweep'`;
		expect((await run()).body.files).toEqual({ files: 1, temporaries: 0 });
	});
});
