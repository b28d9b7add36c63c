import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCommunityPulse, type PulseResult } from '../../src/lib/server/pulse/community-pulse';
import {
	githubIssue,
	githubPullRequest,
	startFakeGitHub,
	type FakeBehaviour,
	type FakeGitHub
} from '../helpers/fake-github';

let github: FakeGitHub;
beforeAll(async () => {
	github = await startFakeGitHub();
});
afterAll(() => github.close());
beforeEach(() => {
	github.requests.length = 0;
	github.respondWith({ kind: 'issues', issues: [githubIssue(1), githubIssue(2)] });
});

const START = Date.parse('2026-11-21T12:00:00Z');

/** A feed over the fake with a clock the test moves by hand. */
function feed(options: { token?: string | null; ttlSeconds?: number; repo?: string | null; timeoutMs?: number } = {}) {
	const clock = { t: START };
	const pulse = createCommunityPulse({
		config: {
			communityPulseRepo: options.repo === undefined ? 'acme/portal' : options.repo,
			githubToken: options.token ?? null,
			githubApiUrl: github.url,
			communityPulseTtlSeconds: options.ttlSeconds ?? 300
		},
		now: () => clock.t,
		timeoutMs: options.timeoutMs
	});
	return { pulse, advance: (ms: number) => (clock.t += ms), clock };
}

function expectOk(result: PulseResult) {
	if (!result.ok) throw new Error(`expected a feed, got ${JSON.stringify(result)}`);
	return result.value;
}

describe('community pulse: upstream request and mapping', () => {
	it('asks GitHub for the open issues, most recently updated first, with a User-Agent and no token when none is set', async () => {
		const { pulse } = feed();
		expectOk(await pulse.get());
		expect(github.count).toBe(1);
		const [request] = github.requests;
		expect(request?.method).toBe('GET');
		const url = new URL(request!.url, github.url);
		expect(url.pathname).toBe('/repos/acme/portal/issues');
		expect(Object.fromEntries(url.searchParams)).toEqual({ state: 'open', sort: 'updated', per_page: '30' });
		expect(request?.headers['user-agent']).toBeTruthy();
		expect(request?.headers.authorization).toBeUndefined();
	});

	it('sends the token as Authorization when GITHUB_TOKEN is set', async () => {
		const { pulse } = feed({ token: 'ghp_test_token_value' });
		expectOk(await pulse.get());
		expect(github.requests[0]?.headers.authorization).toBe('Bearer ghp_test_token_value');
	});

	it('leaves pull requests out and maps every field as docs/community-pulse.md says', async () => {
		github.respondWith({
			kind: 'issues',
			issues: [
				githubIssue(7, {
					title: 'Crash on <b>start</b>',
					comments: 4,
					updated_at: '2026-11-20T08:00:00Z',
					labels: [
						{ name: 'bug', color: 'D73A4A' },
						{ name: 'good first issue', color: '7057ff' }
					]
				}),
				githubPullRequest(8),
				githubIssue(9, { labels: [], user: null })
			]
		});
		const { pulse } = feed();
		const body = expectOk(await pulse.get());
		expect(body.source).toBe('https://github.com/acme/portal/issues');
		expect(new Date(body.fetchedAt).toISOString()).toBe(body.fetchedAt);
		expect(body.items).toEqual([
			{
				number: 7,
				title: 'Crash on <b>start</b>',
				url: 'https://github.com/acme/portal/issues/7',
				author: 'author7',
				labels: [
					{ name: 'bug', color: 'd73a4a' },
					{ name: 'good first issue', color: '7057ff' }
				],
				comments: 4,
				createdAt: '2026-01-02T03:04:05Z',
				updatedAt: '2026-11-20T08:00:00Z'
			},
			{
				number: 9,
				title: 'Issue number 9',
				url: 'https://github.com/acme/portal/issues/9',
				author: 'ghost',
				labels: [],
				comments: 2,
				createdAt: '2026-01-02T03:04:05Z',
				updatedAt: '2026-11-10T10:00:00Z'
			}
		]);
	});

	it('replaces a label colour that is not six hex digits with a neutral one', async () => {
		github.respondWith({
			kind: 'issues',
			issues: [githubIssue(1, { labels: [{ name: 'x', color: 'red;background:url(x)' }] })]
		});
		const body = expectOk(await feed().pulse.get());
		expect(body.items[0]?.labels).toEqual([{ name: 'x', color: 'ededed' }]);
	});

	it('treats an issue link that is not http(s) as a bad answer, never passing it on', async () => {
		github.respondWith({ kind: 'issues', issues: [githubIssue(1, { html_url: 'javascript:alert(1)' })] });
		const result = await feed().pulse.get();
		expect(result).toMatchObject({ ok: false, code: 'upstream_unavailable' });
	});

	it('without COMMUNITY_PULSE_REPO answers not_configured and asks GitHub nothing', async () => {
		const { pulse } = feed({ repo: null });
		expect(await pulse.get()).toMatchObject({
			ok: false,
			code: 'not_configured',
			retryAfterSeconds: null,
			source: null
		});
		expect(github.count).toBe(0);
	});
});

describe('community pulse: one fetch per process, served for the TTL', () => {
	it('100 concurrent requests on a cold cache make exactly one upstream request and get 100 identical answers', async () => {
		const { pulse } = feed();
		const results = await Promise.all(Array.from({ length: 100 }, () => pulse.get()));
		expect(github.count).toBe(1);
		const first = expectOk(results[0]!);
		expect(first.items).toHaveLength(2);
		for (const result of results) expect(result).toEqual(results[0]);
	});

	it('makes no further upstream request within the TTL, and exactly one after it', async () => {
		const { pulse, advance } = feed({ ttlSeconds: 120 });
		const first = expectOk(await pulse.get());
		advance(119_000);
		for (let i = 0; i < 10; i++) expect(expectOk(await pulse.get())).toEqual(first);
		expect(github.count).toBe(1);
		github.respondWith({ kind: 'issues', issues: [githubIssue(3)] });
		advance(1_001);
		const results = await Promise.all(Array.from({ length: 20 }, () => pulse.get()));
		expect(github.count).toBe(2);
		for (const result of results) expect(expectOk(result).items.map((c) => c.number)).toEqual([3]);
	});

	it('with a token, asks again with If-None-Match after the TTL; a 304 renews the TTL with the same cards', async () => {
		github.respondWith({ kind: 'issues', issues: [githubIssue(1), githubPullRequest(2)], etag: 'W/"list-v1"' });
		const { pulse, advance } = feed({ token: 'ghp_test_token_value', ttlSeconds: 60 });
		const first = expectOk(await pulse.get());
		expect(github.requests[0]?.headers['if-none-match']).toBeUndefined();
		advance(60_001);
		const second = expectOk(await pulse.get());
		expect(github.count).toBe(2);
		expect(github.requests[1]?.headers['if-none-match']).toBe('W/"list-v1"');
		expect(second.items).toEqual(first.items);
		expect(Date.parse(second.fetchedAt)).toBeGreaterThan(Date.parse(first.fetchedAt));
		advance(59_000);
		expectOk(await pulse.get());
		expect(github.count).toBe(2);
		// A changed list (new ETag) replaces the cards.
		github.respondWith({ kind: 'issues', issues: [githubIssue(5)], etag: 'W/"list-v2"' });
		advance(1_001);
		expect(expectOk(await pulse.get()).items.map((c) => c.number)).toEqual([5]);
		expect(github.count).toBe(3);
	});
});

const failures: { name: string; behaviour: FakeBehaviour }[] = [
	{ name: 'an upstream 500', behaviour: { kind: 'status', status: 500 } },
	{ name: 'a timeout', behaviour: { kind: 'hang' } },
	{
		name: 'a 403 with x-ratelimit-remaining: 0',
		behaviour: {
			kind: 'status',
			status: 403,
			headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(START / 1000) + 30) },
			body: '{"message":"API rate limit exceeded"}'
		}
	},
	{ name: 'a 429', behaviour: { kind: 'status', status: 429 } },
	{ name: 'bad JSON', behaviour: { kind: 'bad-json' } },
	{ name: 'JSON of the wrong shape', behaviour: { kind: 'status', status: 200, body: '{"message":"not a list"}' } }
];

describe('community pulse: a failure suppresses upstream requests for at least 60 seconds', () => {
	it.each(failures)(
		'after $name: 503 with Retry-After, no upstream request for 60 s, then exactly one new attempt',
		async ({ behaviour }) => {
			github.respondWith(behaviour);
			const { pulse, advance } = feed({ timeoutMs: 300 });
			const failed = await pulse.get();
			expect(failed).toMatchObject({
				ok: false,
				code: 'upstream_unavailable',
				retryAfterSeconds: 60,
				source: 'https://github.com/acme/portal/issues'
			});
			expect(github.count).toBe(1);

			github.respondWith({ kind: 'issues', issues: [githubIssue(1)] });
			for (const step of [1_000, 29_000, 29_999]) {
				advance(step);
				const results = await Promise.all(Array.from({ length: 10 }, () => pulse.get()));
				for (const result of results) expect(result).toMatchObject({ ok: false, code: 'upstream_unavailable' });
			}
			const later = await pulse.get();
			expect(later).toMatchObject({ ok: false, retryAfterSeconds: 1 });
			expect(github.count).toBe(1);

			advance(2);
			const results = await Promise.all(Array.from({ length: 10 }, () => pulse.get()));
			expect(github.count).toBe(2);
			for (const result of results) expect(expectOk(result).items.map((c) => c.number)).toEqual([1]);
		}
	);

	it('Retry-After counts down the seconds left', async () => {
		github.respondWith({ kind: 'status', status: 502 });
		const { pulse, advance } = feed();
		expect(await pulse.get()).toMatchObject({ retryAfterSeconds: 60 });
		advance(15_500);
		expect(await pulse.get()).toMatchObject({ retryAfterSeconds: 45 });
		expect(github.count).toBe(1);
	});

	it('waits longer when the rate-limit reset lies further ahead than 60 s', async () => {
		github.respondWith({
			kind: 'status',
			status: 403,
			headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(START / 1000 + 300) }
		});
		const { pulse, advance } = feed();
		expect(await pulse.get()).toMatchObject({ ok: false, retryAfterSeconds: 300 });
		github.respondWith({ kind: 'issues', issues: [githubIssue(1)] });
		advance(61_000);
		expect(await pulse.get()).toMatchObject({ ok: false, retryAfterSeconds: 239 });
		advance(238_999);
		expect(await pulse.get()).toMatchObject({ ok: false });
		expect(github.count).toBe(1);
		advance(2);
		expectOk(await pulse.get());
		expect(github.count).toBe(2);
	});

	it("honours GitHub's Retry-After when it asks for more than 60 s", async () => {
		github.respondWith({ kind: 'status', status: 403, headers: { 'retry-after': '120' } });
		const { pulse, advance } = feed();
		expect(await pulse.get()).toMatchObject({ ok: false, retryAfterSeconds: 120 });
		advance(100_000);
		expect(await pulse.get()).toMatchObject({ ok: false, retryAfterSeconds: 20 });
		expect(github.count).toBe(1);
	});

	it('after a success, a failed refresh answers 503 and never the earlier cards', async () => {
		const { pulse, advance } = feed({ ttlSeconds: 60 });
		expectOk(await pulse.get());
		github.respondWith({ kind: 'status', status: 500 });
		advance(60_001);
		expect(await pulse.get()).toMatchObject({ ok: false, code: 'upstream_unavailable', retryAfterSeconds: 60 });
		expect(github.count).toBe(2);
	});

	it('a network error (nothing listening) is a failure too', async () => {
		const closed = await startFakeGitHub();
		const url = closed.url;
		await closed.close();
		const pulse = createCommunityPulse({
			config: { communityPulseRepo: 'acme/portal', githubToken: null, githubApiUrl: url, communityPulseTtlSeconds: 300 }
		});
		expect(await pulse.get()).toMatchObject({ ok: false, code: 'upstream_unavailable', retryAfterSeconds: 60 });
	});
});
