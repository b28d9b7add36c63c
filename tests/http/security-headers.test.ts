// The security headers of docs/security.md on every HTML page, from the built server (`node
// build/index.js`, what `npm start` runs) and behind the shipped nginx configuration.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_BIN, startNginx, type RunningNginx } from '../helpers/nginx';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

const member = testAccount('member');
const admin = testAccount('admin');

function directives(policy: string): Map<string, string[]> {
	const map = new Map<string, string[]>();
	for (const part of policy.split(';')) {
		const [name, ...values] = part.trim().split(/\s+/);
		if (name) map.set(name.toLowerCase(), values);
	}
	return map;
}

/**
 * Every inline <script> of the page must be allowed by the policy's script-src (by nonce or hash); a page that does
 * not hydrate (the home page, issue 61) has none.
 */
function inlineScriptsAllowed(html: string, scriptSrc: string[], hydrates: boolean) {
	const scripts = [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>([\s\S]*?)<\/script>/g)];
	if (hydrates) expect(scripts.length).toBeGreaterThan(0);
	else expect(scripts).toEqual([]);
	for (const [, attributes, content] of scripts) {
		const nonce = /\snonce="([^"]+)"/.exec(attributes ?? '')?.[1];
		const hash = `'sha256-${createHash('sha256')
			.update(content ?? '')
			.digest('base64')}'`;
		expect(scriptSrc.includes(`'nonce-${nonce}'`) || scriptSrc.includes(hash), `inline script ${hash}`).toBe(true);
	}
}

async function expectPageHeaders(response: Response, options: { private: boolean; hydrates?: boolean }) {
	const html = await response.text();
	expect(response.headers.get('content-type')).toMatch(/^text\/html/);
	const policy = directives(response.headers.get('content-security-policy') ?? '');
	const scriptSrc = policy.get('script-src');
	expect(scriptSrc).toBeDefined();
	expect(scriptSrc).not.toContain("'unsafe-inline'");
	expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
	expect(policy.get('object-src')).toEqual(["'none'"]);
	inlineScriptsAllowed(html, scriptSrc ?? [], options.hydrates ?? true);
	expect(response.headers.get('x-content-type-options')).toBe('nosniff');
	expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
	if (options.private) expect(response.headers.get('cache-control')).toBe('private, no-store');
}

describe('security headers', { timeout: 120_000 }, () => {
	let portal: RunningServer;
	let proxy: RunningNginx | undefined;
	let memberCookie: string;
	let adminCookie: string;

	beforeAll(async () => {
		portal = await startServer({ env: { ADMIN_ADDRESSES: admin.address } });
		memberCookie = await signIn(portal.url, member);
		adminCookie = await signIn(portal.url, admin);
		if (NGINX_BIN) proxy = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce' });
	});
	afterAll(async () => {
		await proxy?.stop();
		await portal?.stop();
	});

	const deployments = () => [
		['node build/index.js', portal.url] as const,
		...(proxy ? [['behind nginx', proxy.url] as const] : [])
	];

	it('/ (no script at all), /setup and the 404 page: policy with their inline scripts allowed, nosniff, referrer policy', async () => {
		for (const [, base] of deployments()) {
			await expectPageHeaders(await fetch(`${base}/`), { private: false, hydrates: false });
			await expectPageHeaders(await fetch(`${base}/setup`), { private: false });
			const missing = await fetch(`${base}/no-such-page`);
			expect(missing.status).toBe(404);
			await expectPageHeaders(missing, { private: true });
		}
	});

	it('member and admin pages and their __data.json: the same plus Cache-Control: private, no-store', async () => {
		for (const [, base] of deployments()) {
			await expectPageHeaders(await fetch(`${base}/apply`, { headers: { cookie: memberCookie } }), { private: true });
			await expectPageHeaders(await fetch(`${base}/checkin`, { headers: { cookie: memberCookie } }), { private: true });
			const adminPage = await fetch(`${base}/admin`, { headers: { cookie: adminCookie } });
			expect(adminPage.status).toBe(200);
			await expectPageHeaders(adminPage, { private: true });
			for (const [path, cookie] of [
				['/apply/__data.json', memberCookie],
				['/admin/__data.json', adminCookie]
			] as const) {
				const data = await fetch(`${base}${path}`, { headers: { cookie } });
				expect(data.status).toBe(200);
				expect(data.headers.get('cache-control')).toBe('private, no-store');
				expect(data.headers.get('x-content-type-options')).toBe('nosniff');
			}
		}
	});

	it("a page's Link header preloads the scripts it will load, each one served, and no stylesheet its head links itself", async () => {
		const page = await fetch(`${portal.url}/apply`, { headers: { cookie: memberCookie } });
		const html = await page.text();
		const entries = (page.headers.get('link') ?? '').split(/,\s*/).filter(Boolean);
		const scripts = entries.map((e) => /^<([^>]+)>; rel="modulepreload"/.exec(e)?.[1]);
		expect(scripts.length).toBeGreaterThan(0);
		expect(scripts.every((s) => s !== undefined)).toBe(true);
		// The hydration script imports the page's entry files: every one of them is among the preloads.
		for (const [, entry] of html.matchAll(/import\("([^"]+\.js)"\)/g)) expect(scripts).toContain(entry);
		const stylesheets = [...html.matchAll(/<link href="([^"]+\.css)" rel="stylesheet">/g)].map(([, href]) => href);
		expect(stylesheets.length).toBeGreaterThan(0);
		for (const file of [...scripts, ...stylesheets])
			expect((await fetch(`${portal.url}${file}`)).status, file).toBe(200);
	});

	it.skipIf(!NGINX_BIN)("nginx's own answers (400, 429) carry a closed policy and the same headers", async () => {
		const refused = await fetch(`${proxy!.url}/api%2Fauth/nonce`);
		expect(refused.status).toBe(400);
		const policy = directives(refused.headers.get('content-security-policy') ?? '');
		expect(policy.get('default-src')).toEqual(["'none'"]);
		expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
		expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
		// The portal's own headers are never doubled by nginx's.
		const page = await fetch(`${proxy!.url}/`);
		expect(page.headers.get('x-content-type-options')).toBe('nosniff');
		expect(page.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
	});

	it('HSTS when the portal is served over https (ORIGIN), none over plain http', async () => {
		expect((await fetch(`${portal.url}/`)).headers.get('strict-transport-security')).toBeNull();
		const https = await startServer({ env: { ORIGIN: 'https://portal.example.org' } });
		try {
			for (const path of ['/', '/setup', '/no-such-page', '/api/auth/me']) {
				const response = await fetch(`${https.url}${path}`);
				expect(response.headers.get('strict-transport-security'), path).toMatch(/^max-age=\d{7,}/);
			}
		} finally {
			await https.stop();
		}
	});
});
