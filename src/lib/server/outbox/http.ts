import type { Pool } from 'undici';

// undici is 110 modules: loaded with the first delivery, not at every server start (bench/README.md, CI time).
let undici: Promise<typeof import('undici')> | null = null;

/** An attempt that got no answer within its time. */
export class AttemptTimeout extends Error {}

/**
 * POSTs through undici's connection pools, one per receiver origin (keep-alive): about a third of
 * node:http's CPU per request, and a tenth of fetch's, on the two cores the worker shares with the
 * requests it must not slow. Redirects are not followed (a pool never does), and an answer's body is
 * read no further than undici's dump limit.
 */
export class OriginPools {
	private readonly pools = new Map<string, Pool>();

	constructor(
		private readonly connections: number,
		private readonly timeoutMs: number
	) {}

	/** One POST within the timeout (else AttemptTimeout): the status, and a reader of the answer's headers. */
	async post(target: URL, headers: Record<string, string>, body: string | Buffer) {
		let pool = this.pools.get(target.origin);
		if (!pool) {
			const { Pool } = await (undici ??= import('undici'));
			// Another POST to the same origin may have made it while this one waited for the module.
			pool = this.pools.get(target.origin) ?? new Pool(target.origin, { connections: this.connections });
			this.pools.set(target.origin, pool);
		}
		const abort = new AbortController();
		const timer = setTimeout(() => abort.abort(new AttemptTimeout()), this.timeoutMs);
		try {
			const response = await pool.request({
				method: 'POST',
				path: target.pathname + target.search,
				headers,
				body,
				signal: abort.signal
			});
			await response.body.dump();
			const header = (name: string) => {
				const value = response.headers[name];
				return Array.isArray(value) ? value[0] : value;
			};
			return { status: response.statusCode, header };
		} catch (err) {
			throw abort.signal.aborted ? new AttemptTimeout() : err;
		} finally {
			clearTimeout(timer);
		}
	}

	async close(): Promise<void> {
		const closing = [...this.pools.values()].map((pool) => pool.destroy());
		this.pools.clear();
		await Promise.all(closing);
	}
}

/** A header's seconds (Retry-After, X-RateLimit-Reset-After) in ms; 0 when absent or unreadable. */
export function secondsToMs(value: string | undefined): number {
	const seconds = Number(value);
	return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/**
 * A failed POST in words, by its error code only: a network error's message can name the URL, whose
 * path may be a token (a Discord webhook) or identify a browser (a push endpoint).
 */
export function failedPostInWords(err: unknown, timeoutMs: number): string {
	if (err instanceof AttemptTimeout) return `no answer within ${timeoutMs / 1000} s`;
	const code = (err as { code?: unknown }).code;
	return `could not connect (${typeof code === 'string' ? code : 'network error'})`;
}
