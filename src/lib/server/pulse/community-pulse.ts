import { LRUCache } from 'lru-cache';
import * as v from 'valibot';
import type { Card, PulseFeed } from '$lib/pulse/community-pulse';
import { ok, type Failed, type Result } from '$lib/platform/result';
import type { Config } from '../platform/config';
import { runtime } from '../platform/runtime';
import { singleton } from '$lib/platform/singleton';

/** The feed, or why there is none (`code`: the JSON error body's, docs/http.md). */
export type PulseResult = Result<PulseFeed, PulseFailure>;

export interface PulseFailure extends Failed<'upstream_unavailable' | 'not_configured'> {
	/** Whole seconds until the next upstream attempt may be made; null when waiting will not help. */
	retryAfterSeconds: number | null;
	/** The repository's issue list, when a repository is configured. */
	source: string | null;
}

export interface CommunityPulse {
	/** The current feed: cached, shared with concurrent callers, or a suppressed failure. Never throws. */
	get(): Promise<PulseResult>;
}

export interface CommunityPulseOptions {
	config: Pick<Config, 'communityPulseRepo' | 'githubToken' | 'githubApiUrl' | 'communityPulseTtlSeconds'>;
	fetch?: typeof globalThis.fetch;
	/** Milliseconds since the epoch; tests pass their own clock. */
	now?: () => number;
	timeoutMs?: number;
}

/** The specification's floor for retry suppression after a failed fetch. */
export const FAILURE_SUPPRESSION_MS = 60_000;
// A bogus reset header must not silence the feed for longer than GitHub's hourly window.
const MAX_SUPPRESSION_MS = 3_600_000;
export const UPSTREAM_TIMEOUT_MS = 5_000;
const USER_AGENT = 'member-portal-community-pulse';
const KEY = 'issues';

const HttpUrl = v.pipe(v.string(), v.regex(/^https?:\/\//i, 'must be an http(s) URL'));
const Label = v.union([
	v.pipe(
		v.string(),
		v.transform((name) => ({ name, color: null as string | null }))
	),
	v.object({ name: v.string(), color: v.nullish(v.string(), null) })
]);
const UpstreamIssue = v.object({
	number: v.pipe(v.number(), v.integer()),
	title: v.string(),
	html_url: HttpUrl,
	user: v.nullish(v.object({ login: v.string() }), null),
	labels: v.optional(v.array(Label), []),
	comments: v.pipe(v.number(), v.integer()),
	created_at: v.string(),
	updated_at: v.string(),
	pull_request: v.optional(v.unknown())
});
const UpstreamIssues = v.array(UpstreamIssue);

const HEX_COLOR = /^[0-9a-f]{6}$/i;
// GitHub's own default label colour; also stands in for a colour that is not six hex digits.
const DEFAULT_LABEL_COLOR = 'ededed';

/** Pull requests are left out; the rest map field by field to cards. */
export function toCards(issues: v.InferOutput<typeof UpstreamIssues>): Card[] {
	return issues
		.filter((issue) => issue.pull_request === undefined)
		.map((issue) => ({
			number: issue.number,
			title: issue.title,
			url: issue.html_url,
			author: issue.user?.login ?? 'ghost',
			labels: issue.labels.map((label) => ({
				name: label.name,
				color: label.color && HEX_COLOR.test(label.color) ? label.color.toLowerCase() : DEFAULT_LABEL_COLOR
			})),
			comments: issue.comments,
			createdAt: issue.created_at,
			updatedAt: issue.updated_at
		}));
}

// What one fetch gave, cached for its TTL: the feed, or the failure with what went wrong in its message.
type Entry = Result<PulseFeed, Failed<'upstream_unavailable'>>;

/** How long after a failed answer to wait: at least 60 s, longer when GitHub says so. */
function suppressionMs(response: Response | null, now: number): number {
	let wait = FAILURE_SUPPRESSION_MS;
	const retryAfter = response?.headers.get('retry-after');
	if (retryAfter && /^\d+$/.test(retryAfter.trim())) wait = Math.max(wait, Number(retryAfter) * 1000);
	const reset = response?.headers.get('x-ratelimit-reset');
	if (response?.headers.get('x-ratelimit-remaining') === '0' && reset && /^\d+$/.test(reset.trim())) {
		wait = Math.max(wait, Number(reset) * 1000 - now);
	}
	return Math.min(wait, MAX_SUPPRESSION_MS);
}

/**
 * The community feed over GitHub's issues API. One cache entry, filled through lru-cache's
 * fetchMethod, which hands every concurrent caller the one fetch in flight. A failure is cached
 * too, for the suppression window, so no caller reaches GitHub until it has passed.
 */
export function createCommunityPulse(options: CommunityPulseOptions): CommunityPulse {
	const { config } = options;
	const fetchUpstream = options.fetch ?? globalThis.fetch;
	const now = options.now ?? Date.now;
	const timeoutMs = options.timeoutMs ?? UPSTREAM_TIMEOUT_MS;
	const repo = config.communityPulseRepo;
	const source = repo ? `https://github.com/${repo}/issues` : null;
	// The last list GitHub sent, with its ETag: a 304 answer means it is still current.
	let validator: { etag: string; items: Card[] } | null = null;

	async function load(): Promise<{ entry: Entry; ttlMs: number }> {
		const url = `${config.githubApiUrl}/repos/${repo}/issues?state=open&sort=updated&per_page=30`;
		const headers: Record<string, string> = {
			accept: 'application/vnd.github+json',
			'user-agent': USER_AGENT,
			'x-github-api-version': '2022-11-28'
		};
		if (config.githubToken) headers.authorization = `Bearer ${config.githubToken}`;
		if (validator) headers['if-none-match'] = validator.etag;
		const fail = (reason: string, response: Response | null = null) => ({
			entry: {
				ok: false,
				code: 'upstream_unavailable',
				message: `The issues could not be fetched from GitHub (${reason}). Try again later.`
			} as Entry,
			ttlMs: suppressionMs(response, now())
		});
		const succeed = (items: Card[]) => ({
			entry: ok({ items, fetchedAt: new Date(now()).toISOString(), source: source! }) as Entry,
			ttlMs: config.communityPulseTtlSeconds * 1000
		});

		let response: Response;
		let text: string;
		try {
			// The timeout covers the body as well as the headers.
			response = await fetchUpstream(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
			if (response.status === 304 && validator) return succeed(validator.items);
			if (!response.ok) {
				await response.body?.cancel().catch(() => {});
				return fail(`GitHub answered ${response.status}`, response);
			}
			text = await response.text();
		} catch (err) {
			const timedOut = err instanceof DOMException && err.name === 'TimeoutError';
			return fail(timedOut ? 'GitHub did not answer in time' : 'GitHub could not be reached');
		}
		let body: unknown;
		try {
			body = JSON.parse(text);
		} catch {
			return fail('GitHub sent something that is not JSON', response);
		}
		const parsed = v.safeParse(UpstreamIssues, body);
		if (!parsed.success) return fail('GitHub sent a list of an unexpected shape', response);
		const items = toCards(parsed.output);
		const etag = response.headers.get('etag');
		validator = etag ? { etag, items } : null;
		return succeed(items);
	}

	const cache = new LRUCache<string, Entry>({
		max: 1,
		ttl: config.communityPulseTtlSeconds * 1000,
		ttlResolution: 0,
		perf: { now },
		fetchMethod: async (_key, _stale, { options: setOptions }) => {
			const { entry, ttlMs } = await load();
			setOptions.ttl = ttlMs;
			return entry;
		}
	});

	return {
		async get() {
			if (!repo || !source) {
				return {
					ok: false,
					code: 'not_configured',
					message: 'The community feed is not configured (COMMUNITY_PULSE_REPO is not set).',
					retryAfterSeconds: null,
					source: null
				};
			}
			const entry = await cache.fetch(KEY);
			if (entry?.ok) return entry;
			const remaining = cache.getRemainingTTL(KEY);
			return {
				ok: false,
				code: 'upstream_unavailable',
				message: entry?.message ?? 'The issues could not be fetched from GitHub (no answer). Try again later.',
				retryAfterSeconds: Math.max(
					1,
					Math.ceil((Number.isFinite(remaining) ? remaining : FAILURE_SUPPRESSION_MS) / 1000)
				),
				source
			};
		}
	};
}

const feed = singleton('community pulse', () => createCommunityPulse({ config: runtime().config }));

/** The process's one feed, made from the runtime configuration on first use. */
export const communityPulse = (): CommunityPulse => feed.get();
