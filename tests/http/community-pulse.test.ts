import { afterAll, describe, expect, it } from 'vitest';
import { githubIssue, githubPullRequest, startFakeGitHub, type FakeGitHub } from '../helpers/fake-github';
import { parseJson } from '../helpers/json';
import { startServer, type RunningServer } from '../helpers/server';

// The built server (`npm run build` first) with GITHUB_API_URL pointing at a counting fake on loopback.

const servers: RunningServer[] = [];
const fakes: FakeGitHub[] = [];
afterAll(async () => {
	await Promise.all(servers.map((s) => s.stop()));
	await Promise.all(fakes.map((f) => f.close()));
});

async function setup(env: Record<string, string | undefined> = {}) {
	const github = await startFakeGitHub({
		kind: 'issues',
		issues: [githubIssue(1), githubPullRequest(2), githubIssue(3)]
	});
	fakes.push(github);
	const server = await startServer({
		env: { COMMUNITY_PULSE_REPO: 'acme/portal', GITHUB_API_URL: github.url, ...env }
	});
	servers.push(server);
	return { github, server };
}

async function pulse(server: RunningServer) {
	const response = await fetch(`${server.url}/api/community-pulse`, { signal: AbortSignal.timeout(20_000) });
	return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('GET /api/community-pulse on the built server', () => {
	it('answers 100 concurrent requests on a cold cache with exactly one upstream request and 100 identical bodies', async () => {
		const { github, server } = await setup();
		const answers = await Promise.all(Array.from({ length: 100 }, () => pulse(server)));
		expect(github.count).toBe(1);
		for (const answer of answers) {
			expect(answer.status).toBe(200);
			expect(answer.text).toBe(answers[0]!.text);
		}
		const body = parseJson<{ source: string; items: { number: number }[] }>(answers[0]!.text);
		expect(body.source).toBe('https://github.com/acme/portal/issues');
		expect(body.items.map((card) => card.number)).toEqual([1, 3]);
		expect(answers[0]!.headers.get('content-type')).toMatch(/application\/json/);
		// Within the TTL (default 300 s) nothing more goes upstream.
		for (let i = 0; i < 5; i++) expect((await pulse(server)).text).toBe(answers[0]!.text);
		expect(github.count).toBe(1);
	});

	it('after an upstream 500: 503 upstream_unavailable with Retry-After at once, and no upstream request meanwhile', async () => {
		const { github, server } = await setup();
		github.respondWith({ kind: 'status', status: 500 });
		const answers = await Promise.all(Array.from({ length: 50 }, () => pulse(server)));
		expect(github.count).toBe(1);
		for (const answer of answers) {
			expect(answer.status).toBe(503);
			expect(parseJson(answer.text)).toEqual({
				error: { code: 'upstream_unavailable', message: expect.any(String) as unknown }
			});
			const retryAfter = Number(answer.headers.get('retry-after'));
			expect(retryAfter).toBeGreaterThan(50);
			expect(retryAfter).toBeLessThanOrEqual(60);
			expect(answer.headers.get('link')).toContain('<https://github.com/acme/portal/issues>');
		}
		// GitHub is fine again, but the suppression window has not passed.
		github.respondWith({ kind: 'issues', issues: [githubIssue(1)] });
		const later = await pulse(server);
		expect(later.status).toBe(503);
		expect(github.count).toBe(1);
	});

	it('after a 403 rate-limit answer: 503 with Retry-After until the reset GitHub named', async () => {
		const { github, server } = await setup();
		github.respondWith({
			kind: 'status',
			status: 403,
			headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 600) }
		});
		const first = await pulse(server);
		expect(first.status).toBe(503);
		expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(500);
		expect((await pulse(server)).status).toBe(503);
		expect(github.count).toBe(1);
	});

	it('after bad JSON: 503 with Retry-After and no further upstream request', async () => {
		const { github, server } = await setup();
		github.respondWith({ kind: 'bad-json' });
		const answers = await Promise.all(Array.from({ length: 20 }, () => pulse(server)));
		for (const answer of answers) {
			expect(answer.status).toBe(503);
			expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(50);
		}
		expect(github.count).toBe(1);
	});

	it('after an upstream that does not answer within 5 seconds: 503, then at once for later requests', async () => {
		const { github, server } = await setup();
		github.respondWith({ kind: 'hang' });
		const started = Date.now();
		const answers = await Promise.all(Array.from({ length: 10 }, () => pulse(server)));
		const waited = Date.now() - started;
		expect(waited).toBeGreaterThanOrEqual(4_500);
		for (const answer of answers) expect(answer.status).toBe(503);
		expect(github.count).toBe(1);
		const later = await pulse(server);
		expect(later.status).toBe(503);
		expect(Number(later.headers.get('retry-after'))).toBeGreaterThan(50);
		expect(github.count).toBe(1);
	});

	it('sends GITHUB_TOKEN upstream and never shows it in an answer or the log', async () => {
		const token = 'ghp_secret_test_token_0123456789';
		const { github, server } = await setup({ GITHUB_TOKEN: token });
		github.respondWith({ kind: 'status', status: 401, body: '{"message":"Bad credentials"}' });
		const answer = await pulse(server);
		expect(answer.status).toBe(503);
		expect(github.requests[0]?.headers.authorization).toBe(`Bearer ${token}`);
		expect(answer.text).not.toContain(token);
		expect(server.output()).not.toContain(token);
	});

	it('without COMMUNITY_PULSE_REPO answers 204 with no body (nothing to show, not a failure)', async () => {
		const { github, server } = await setup({ COMMUNITY_PULSE_REPO: undefined });
		const answer = await pulse(server);
		expect(answer.status).toBe(204);
		expect(answer.text).toBe('');
		expect(github.count).toBe(0);
	});
});
