// deploy/adapter.js against a stand-in of SvelteKit's builder: the policies it takes from prerendered
// pages, and the routes it gives a Vercel build (no Vercel here; docs/security.md "Vercel").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withSecurityHeaders } from '../../deploy/adapter.js';
import { parseJson } from '../helpers/json';

const dir = mkdtempSync(path.join(tmpdir(), 'portal-adapter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const META = `default-src 'self'; script-src 'self' 'sha256-abc='; object-src 'none'`;
const page = (policy: string | null) =>
	`<!doctype html><html><head>${policy === null ? '' : `<meta http-equiv="content-security-policy" content="${policy}">`}</head><body><script>start()</script></body></html>`;

interface Route {
	src?: string;
	headers?: Record<string, string>;
	continue?: boolean;
}

async function adaptVercel(pages: Record<string, string>) {
	const output = path.join(dir, 'kit-output', String(Math.random()).slice(2));
	const prerendered = path.join(output, 'prerendered', 'pages');
	const config = path.join(output, 'config.json');
	const { mkdirSync } = await import('node:fs');
	mkdirSync(prerendered, { recursive: true });
	const map = new Map<string, { file: string }>();
	for (const [pathname, html] of Object.entries(pages)) {
		const file = pathname === '/' ? 'index.html' : `${pathname.slice(1)}.html`;
		writeFileSync(path.join(prerendered, file), html);
		map.set(pathname, { file });
	}
	const inner = {
		name: 'stand-in',
		adapt: () => writeFileSync(config, JSON.stringify({ version: 3, routes: [{ handle: 'filesystem' }] }))
	};
	const builder = { getBuildDirectory: () => output, prerendered: { pages: map } };
	const adapter = withSecurityHeaders(inner, { target: 'vercel', vercelConfig: config });
	await adapter.adapt(builder as unknown as Parameters<typeof adapter.adapt>[0]);
	return parseJson<{ routes: Route[] }>(readFileSync(config, 'utf8')).routes;
}

describe('the security headers of a Vercel build', () => {
	it('every path gets nosniff, the referrer policy and HSTS; each prerendered page its own policy plus frame-ancestors', async () => {
		const routes = await adaptVercel({ '/': page(META), '/setup': page(META.replace('abc', 'def')) });
		expect(routes[0]).toEqual({
			src: '/.*',
			headers: {
				'X-Content-Type-Options': 'nosniff',
				'Referrer-Policy': 'strict-origin-when-cross-origin',
				'Strict-Transport-Security': expect.stringMatching(/^max-age=\d{7,}/) as string
			},
			continue: true
		});
		const policyFor = (pathname: string) =>
			routes.find((r) => r.src && new RegExp(r.src).test(pathname) && r.headers?.['Content-Security-Policy'])
				?.headers?.['Content-Security-Policy'];
		expect(policyFor('/')).toBe(`${META}; frame-ancestors 'none'`);
		expect(policyFor('/setup')).toBe(`${META.replace('abc', 'def')}; frame-ancestors 'none'`);
		expect(policyFor('/setup.html')).toBe(policyFor('/setup'));
		expect(policyFor('/setup/other')).toBeUndefined();
		// Vercel's own routes follow, unchanged.
		expect(routes.at(-1)).toEqual({ handle: 'filesystem' });
	});

	it('SAFE_APP_ORIGINS at build time: the prerendered pages name those frame ancestors; /manifest.json is readable from any origin', async () => {
		process.env.SAFE_APP_ORIGINS = 'https://app.safe.global';
		let routes: Route[];
		try {
			routes = await adaptVercel({ '/setup': page(META) });
		} finally {
			delete process.env.SAFE_APP_ORIGINS;
		}
		const policy = routes.find((r) => r.headers?.['Content-Security-Policy'])?.headers?.['Content-Security-Policy'];
		expect(policy).toBe(`${META}; frame-ancestors https://app.safe.global`);
		const cors = routes.filter((r) => r.headers?.['Access-Control-Allow-Origin']);
		expect(cors.map((r) => r.headers?.['Access-Control-Allow-Origin'])).toEqual(['*']);
		expect(new RegExp(cors[0]!.src!).test('/manifest.json')).toBe(true);
		expect(new RegExp(cors[0]!.src!).test('/setup')).toBe(false);
	});

	it("WalletConnect's hosts stay in the headers only when the build's environment sets PUBLIC_WALLETCONNECT_PROJECT_ID", async () => {
		const ceiling = `default-src 'self'; connect-src 'self' wss://relay.walletconnect.org https://api.web3modal.org; frame-src 'self' https://verify.walletconnect.org; img-src 'self' data: blob: https://api.web3modal.org`;
		const policyOf = (routes: Route[]) =>
			routes.find((r) => r.src?.includes('setup'))?.headers?.['Content-Security-Policy'];
		const before = process.env.PUBLIC_WALLETCONNECT_PROJECT_ID;
		try {
			delete process.env.PUBLIC_WALLETCONNECT_PROJECT_ID;
			expect(policyOf(await adaptVercel({ '/setup': page(ceiling) }))).toBe(
				`default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'`
			);
			process.env.PUBLIC_WALLETCONNECT_PROJECT_ID = '0123456789abcdef0123456789abcdef';
			expect(policyOf(await adaptVercel({ '/setup': page(ceiling) }))).toBe(`${ceiling}; frame-ancestors 'none'`);
		} finally {
			if (before === undefined) delete process.env.PUBLIC_WALLETCONNECT_PROJECT_ID;
			else process.env.PUBLIC_WALLETCONNECT_PROJECT_ID = before;
		}
	});

	it('a prerendered page without the policy <meta> (kit.csp unset) fails the build', async () => {
		await expect(adaptVercel({ '/': page(null) })).rejects.toThrow(/no content-security-policy <meta>/);
	});
});
