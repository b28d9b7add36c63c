// What observeRequests (request id, histogram, one JSON log line) adds to one request, in one process:
// the handle around a resolve that answers at once, against the bare resolve.
// Usage: npx vitest bench --run --project unit bench/observability.bench.ts --outputJson <file> > /dev/null
// (stdout takes the log lines, as a log collector's pipe would.)
import type { RequestEvent } from '@sveltejs/kit';
import { bench, describe } from 'vitest';
import { observeRequests } from '../src/lib/server/platform/observability';

const request = new Request('http://127.0.0.1/api/auth/me', { headers: { cookie: 'portal_session=x' } });
const event = () =>
	({ request, isSubRequest: false, locals: {}, route: { id: '/api/auth/me' } }) as unknown as RequestEvent;
const resolve = () => Promise.resolve(Response.json({ address: null }, { headers: { 'cache-control': 'no-store' } }));

describe('GET /api/auth/me handle', () => {
	bench('bare resolve', async () => {
		await resolve();
	});
	bench('observeRequests around it', async () => {
		await observeRequests({ event: event(), resolve });
	});
});
