// `npm run edge:check` against nginx running the shipped configuration, the plain portal and a
// server that denies.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_BIN, NGINX_MISSING_REASON, roomInMinute, startNginx, type RunningNginx } from '../helpers/nginx';
import { runScript as run } from '../helpers/scripts';
import { startServer, type RunningServer } from '../helpers/server';

if (!NGINX_BIN) console.warn(`SKIPPED (edge:check against nginx): ${NGINX_MISSING_REASON}`);

/** A site whose rule denies (403) over 100 requests: the wrong action. */
async function startDenier(): Promise<{ url: string; close(): Promise<void> }> {
	let count = 0;
	const denier = createServer((_req, res) => res.writeHead(++count > 100 ? 403 : 200).end());
	await new Promise<void>((r) => denier.listen(0, '127.0.0.1', r));
	const a = denier.address();
	return {
		url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`,
		close: () => new Promise<void>((r) => denier.close(() => r()))
	};
}

describe('npm run edge:check', () => {
	let portal: RunningServer;
	beforeAll(async () => {
		portal = await startServer();
	});
	afterAll(() => portal?.stop());

	describe.skipIf(!NGINX_BIN)('against nginx with the shipped configuration', { timeout: 90_000 }, () => {
		const edges: RunningNginx[] = [];
		afterAll(() => Promise.all(edges.map((e) => e.stop())));

		it('enforcing: active (exit 0) on /api/auth/nonce and, separately, on /api/community-pulse', async () => {
			const edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce' });
			edges.push(edge);
			await roomInMinute(25);
			const auth = await run('scripts/edge-check.js', [edge.url]);
			expect(auth.code, auth.stdout + auth.stderr).toBe(0);
			expect(auth.stdout).toMatch(/ACTIVE: request #101 was answered 429/);
			const pulse = await run('scripts/edge-check.js', [edge.url, '--community-pulse']);
			expect(pulse.code, pulse.stdout + pulse.stderr).toBe(0);
			expect(pulse.stdout).toContain('/api/community-pulse');
			expect(pulse.stdout).toMatch(/ACTIVE: request #101 was answered 429/);
		});

		it('in the Log phase: not active (exit 2)', async () => {
			const edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'log' });
			edges.push(edge);
			const result = await run('scripts/edge-check.js', [edge.url]);
			expect(result.code, result.stdout + result.stderr).toBe(2);
			expect(result.stdout).toMatch(/NOT ACTIVE: all 101 requests passed/);
		});
	});

	it('against the plain portal (no edge): not active (exit 2)', async () => {
		const result = await run('scripts/edge-check.js', [portal.url, '--path', '/api/auth/nonce']);
		expect(result.code, result.stdout + result.stderr).toBe(2);
		expect(result.stdout).toMatch(/NOT ACTIVE/);
	});

	it('against a site that denies: wrong action (exit 3)', async () => {
		const denier = await startDenier();
		try {
			const result = await run('scripts/edge-check.js', [denier.url]);
			expect(result.code, result.stdout + result.stderr).toBe(3);
			expect(result.stdout).toMatch(/WRONG ACTION: request #101 was answered 403/);
		} finally {
			await denier.close();
		}
	});

	it('usage errors and an unreachable site: exit 1', async () => {
		expect((await run('scripts/edge-check.js', [])).code).toBe(1);
		expect((await run('scripts/edge-check.js', ['ftp://example.org'])).code).toBe(1);
		expect((await run('scripts/edge-check.js', [portal.url, '--limit', 'many'])).code).toBe(1);
		const closed = createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
		const a = closed.address();
		await new Promise<void>((r) => closed.close(() => r()));
		const unreachable = await run('scripts/edge-check.js', [
			`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`
		]);
		expect(unreachable.code).toBe(1);
		expect(unreachable.stderr).toMatch(/Request #1 failed/);
	});
});
