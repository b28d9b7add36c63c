// GET /metrics: Prometheus text behind METRICS_TOKEN (the unknown-path 404 otherwise), whose counts
// move with the requests made; and one JSON log line per request that never holds a secret.
import { randomBytes } from 'node:crypto';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { withoutNonces } from '../helpers/csp';
import { engines, requireServerUrl } from '../helpers/db';
import { createServerDatabase } from '../helpers/postgres.js';
import { postForm } from '../helpers/forms';
import { Receiver, newSecret } from '../helpers/receiver';
import { startServer, TEST_SESSION_PASSWORD, type RunningServer } from '../helpers/server';
import { postVerify, signIn } from '../helpers/siwe';

const token = randomBytes(32).toString('hex');
const webhookSecret = newSecret();

interface Scrape extends Array<MetricFamily> {
	text: string;
}

/** A scrape, parsed (the parser throws on a line that is not Prometheus text). */
async function scrape(base: string): Promise<Scrape> {
	const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
	expect(response.status).toBe(200);
	expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
	const text = await response.text();
	return Object.assign(parsePrometheusTextFormat(text), { text });
}

/**
 * The `_count` of one labelled histogram series: the parser merges a histogram's label sets into one
 * sample, so this reads the count line itself (prom-client writes labels in declaration order).
 */
function histogramCount(scraped: Scrape, name: string, labels: Record<string, string>): number {
	const wanted = Object.entries(labels)
		.map(([k, v]) => `${k}="${v}"`)
		.join(',');
	const line = scraped.text.split('\n').find((l) => l.startsWith(`${name}_count{${wanted}}`));
	return line ? Number(line.split(' ').at(-1)) : 0;
}

const family = (families: MetricFamily[], name: string) => families.find((f) => f.name === name);

/** The value of counter or gauge `name` whose labels include `labels`; 0 when no such series yet. */
function valueOf(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
	const sample = family(families, name)?.metrics.find((m) =>
		Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)
	);
	return Number(sample?.value ?? sample?.count ?? 0);
}

describe.each(engines)('/metrics and request logs on %s', (engine) => {
	let server: RunningServer;
	let hook: Receiver;
	let drop: (() => Promise<void>) | undefined;
	beforeAll(async () => {
		const database: Record<string, string> = {};
		if (engine === 'postgres') {
			const created = await createServerDatabase(requireServerUrl(), { prefix: 'portal_metrics' });
			database.DATABASE_URL = created.url;
			drop = created.drop;
		}
		hook = await new Receiver().start();
		// The receiver refuses everything, so each event stays in the outbox as a waiting delivery.
		hook.respond = () => 503;
		server = await startServer({
			env: {
				...database,
				ADMIN_ADDRESSES: admin.address,
				METRICS_TOKEN: token,
				WEBHOOK_URLS: hook.url,
				WEBHOOK_SECRET: webhookSecret
			}
		});
	});
	afterAll(async () => {
		await Promise.all([server?.stop(), hook?.stop()]);
		await drop?.();
	});

	it('answers without the token, with a wrong one or another scheme exactly as an unknown path does', async () => {
		const unknown = await fetch(`${server.url}/nope`);
		const expected = { status: unknown.status, body: withoutNonces(await unknown.text()) };
		expect(expected.status).toBe(404);
		const attempts: [string, RequestInit][] = [
			['/metrics', {}],
			['/metrics', { headers: { authorization: `Bearer ${token}x` } }],
			['/metrics', { headers: { authorization: `Bearer ${token.slice(0, -1)}` } }],
			['/metrics', { headers: { authorization: `Basic ${token}` } }],
			['/metrics', { headers: { authorization: token } }],
			['/metrics', { method: 'POST' }],
			['/metrics', { method: 'POST', headers: { authorization: `Bearer ${token}x` } }],
			// The right token with another method than GET: the unknown path too, not a 405 that shows the route.
			...['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].map((method): [string, RequestInit] => [
				'/metrics',
				{ method, headers: { authorization: `Bearer ${token}` } }
			]),
			['/metrics/', { headers: { authorization: `Bearer ${token}` } }],
			['/%6Detrics', {}]
		];
		for (const [path, init] of attempts) {
			const response = await fetch(`${server.url}${path}`, { ...init, redirect: 'manual' });
			expect({ path, status: response.status, body: withoutNonces(await response.text()) }).toEqual({
				path,
				...expected
			});
		}
	});

	it('parses as Prometheus text with the request, sign-in, rate-limit, outbox and process metrics', async () => {
		const families = await scrape(server.url);
		const names = families.map((f) => f.name);
		for (const name of [
			'http_request_duration_seconds',
			'sign_ins_total',
			'rate_limit_refusals_total',
			'webhook_deliveries_pending',
			'webhook_deliveries_oldest_pending_age_seconds',
			'webhook_deliveries_failed',
			'portal_last_backup_timestamp_seconds',
			'process_cpu_seconds_total',
			'nodejs_heap_size_used_bytes'
		])
			expect(names).toContain(name);
		expect(family(families, 'http_request_duration_seconds')?.type).toBe('HISTOGRAM');
	});

	it('request counts by route id and status class move with the requests made', async () => {
		const before = await scrape(server.url);
		const labels = { method: 'GET', route: '/api/auth/me', status_class: '2xx' };
		for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/api/auth/me`)).status).toBe(200);
		await fetch(`${server.url}/no/such/path?address=0xabc`);
		const after = await scrape(server.url);
		const count = (s: Scrape, l: Record<string, string>) => histogramCount(s, 'http_request_duration_seconds', l);
		expect(count(after, labels) - count(before, labels)).toBe(5);
		const unmatched = { method: 'GET', route: 'unmatched', status_class: '4xx' };
		expect(count(after, unmatched) - count(before, unmatched)).toBe(1);
		// The path's query (an address here) is never a label: only route ids are.
		expect(after.text).not.toContain('0xabc');
	});

	it('sign-ins by outcome, rate-limit refusals by action, and the webhook backlog', async () => {
		const before = await scrape(server.url);
		const cookie = await signIn(server.url, member);
		expect((await postVerify(server.url, { message: 'not a message', signature: '0x00' })).status).toBe(401);
		expect((await postVerify(server.url, 'nope')).status).toBe(400);
		// checkin: 20 a day per address; the 21st is refused, and each accepted one enqueues a webhook.
		for (let i = 0; i < 21; i++) await postForm(`${server.url}/checkin`, { note: `n${i}` }, { cookie });
		const after = await scrape(server.url);
		const delta = (name: string, labels: Record<string, string>) =>
			valueOf(after, name, labels) - valueOf(before, name, labels);
		expect(delta('sign_ins_total', { outcome: 'ok' })).toBe(1);
		expect(
			delta('sign_ins_total', { outcome: 'message_malformed' }) + delta('sign_ins_total', { outcome: 'nonce_mismatch' })
		).toBe(1);
		expect(delta('sign_ins_total', { outcome: 'invalid_request' })).toBe(1);
		expect(delta('rate_limit_refusals_total', { action: 'checkin' })).toBe(1);
		expect(valueOf(after, 'webhook_deliveries_pending')).toBeGreaterThanOrEqual(20);
		expect(valueOf(after, 'webhook_deliveries_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
		expect(valueOf(after, 'webhook_deliveries_failed')).toBe(0);
		// No label value is an address, a cookie or a secret.
		const labelValues = after.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
		for (const value of labelValues) expect(value).not.toMatch(/0x[0-9a-f]{6,}|session|whsec_/i);
	});

	it('logs one JSON line per request with its id (sent as x-request-id), and never a secret, cookie or body', async () => {
		const cookie = await signIn(server.url, admin);
		const ids: string[] = [];
		for (const path of ['/api/auth/me', '/admin', '/nope', '/admin/insights']) {
			const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
			ids.push(response.headers.get('x-request-id')!);
		}
		const motivation = 'A motivation that must never reach a log line';
		await postForm(`${server.url}/apply`, { displayName: 'Logged', motivation }, { cookie });
		// Lines are buffered (4 KiB, or a quarter of a second): wait until the last request's line is out.
		const readLines = () =>
			server
				.output()
				.split('\n')
				.filter((l) => l.startsWith('{'))
				.map((l) => JSON.parse(l) as Record<string, unknown>);
		await expect
			.poll(() => readLines().some((l) => l.route === '/apply' && l.method === 'POST'), { timeout: 5_000 })
			.toBe(true);
		const lines = readLines();
		for (const id of ids) {
			const mine = lines.filter((l) => l.requestId === id);
			expect(mine).toHaveLength(1);
			expect(Object.keys(mine[0]!).sort()).toEqual([
				'durationMs',
				'level',
				'method',
				'msg',
				'requestId',
				'route',
				'status',
				'time'
			]);
		}
		expect(ids.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
		expect(lines.find((l) => l.requestId === ids[2])).toMatchObject({ route: 'unmatched', status: 404, method: 'GET' });
		const output = server.output();
		const cookieValue = cookie.split('=').slice(1).join('=').split(';')[0]!;
		for (const secret of [TEST_SESSION_PASSWORD, token, webhookSecret, cookieValue, motivation, hook.url])
			expect(output).not.toContain(secret);
	});

	it('a proxy’s request id is kept when it is a plain token, replaced otherwise', async () => {
		const kept = await fetch(`${server.url}/api/auth/me`, { headers: { 'x-request-id': 'nginx-0123456789abcdef' } });
		expect(kept.headers.get('x-request-id')).toBe('nginx-0123456789abcdef');
		const injected = await fetch(`${server.url}/api/auth/me`, { headers: { 'x-request-id': 'a"}\\n{"level":"fake' } });
		expect(injected.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
	});
});

describe('/metrics without METRICS_TOKEN', () => {
	let server: RunningServer;
	beforeAll(async () => {
		server = await startServer();
	});
	afterAll(() => server?.stop());

	it('is the unknown-path 404 whatever token is sent', async () => {
		const response = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer ' + 'x'.repeat(40) } });
		const unknown = await fetch(`${server.url}/nope`);
		expect(response.status).toBe(404);
		expect(withoutNonces(await response.text())).toBe(withoutNonces(await unknown.text()));
	});
});
