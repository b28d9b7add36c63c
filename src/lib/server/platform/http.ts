import { isHttpError, json } from '@sveltejs/kit';

/** Every error body: `{ "error": { "code", "message" } }`. */
export function jsonError(status: number, code: string, message: string, headers?: HeadersInit): Response {
	return json({ error: { code, message } }, { status, headers });
}

/**
 * A SvelteKit error (the 503 of withDatabase) as a JSON route answers it, a 503 saying when to try
 * again; anything else is a fault and is rethrown.
 */
export function jsonErrorFrom(err: unknown, headers: Record<string, string> = {}): Response {
	if (!isHttpError(err)) throw err;
	const retry: Record<string, string> = err.status === 503 ? { 'retry-after': '5' } : {};
	return jsonError(err.status, err.body.code ?? 'error', err.body.message, { ...headers, ...retry });
}

/** The path as SvelteKit routes it (`/%61pi/auth/me` is /api/auth/me); a malformed escape, as sent. */
export function routedPath(pathname: string): string {
	try {
		return decodeURI(pathname);
	} catch {
		// Malformed escapes: SvelteKit answers 400; read the path as sent.
		return pathname;
	}
}

/** Under /api however spelled (`/%61pi/auth/me` is routed there too). */
export function isApiPath(pathname: string): boolean {
	const path = routedPath(pathname);
	return path === '/api' || path.startsWith('/api/');
}

/** The body as UTF-8 text, or null when it is larger than `limit` bytes (checked before reading it all) or not UTF-8. */
export async function readLimitedText(request: Request, limit: number): Promise<string | null> {
	const declared = request.headers.get('content-length');
	if (declared !== null && !(Number(declared) <= limit)) return null;
	if (!request.body) return '';
	const reader = request.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limit) {
			// Not cancel(): that destroys the socket before the 400 is written; Node discards the rest.
			reader.releaseLock();
			return null;
		}
		chunks.push(value);
	}
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
	} catch {
		return null;
	}
}
