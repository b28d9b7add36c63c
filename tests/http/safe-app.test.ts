// The portal as a Safe App (docs/sign-in.md "Inside Safe{Wallet}", decision 0022): the manifest
// Safe{Wallet} reads cross-origin, and the SAFE_APP_ORIGINS opt-in that lets Safe{Wallet} frame the
// portal. Without it every page keeps frame-ancestors 'none' and the cookie stays SameSite=Lax.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BRANDING } from '../../src/lib/branding/branding';
import { NGINX_BIN, startNginx, type RunningNginx } from '../helpers/nginx';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

const member = testAccount('member');
const SAFE = 'https://app.safe.global';
const LOCAL_PARENT = 'http://localhost:5999';

function frameAncestors(response: Response): string[] | undefined {
	const policy = response.headers.get('content-security-policy') ?? '';
	for (const part of policy.split(';')) {
		const [name, ...values] = part.trim().split(/\s+/);
		if (name === 'frame-ancestors') return values;
	}
	return undefined;
}

/** The session cookie's attributes, lower-cased names, from every Set-Cookie of `response`. */
function sessionCookieAttributes(response: Response): Map<string, string>[] {
	return response.headers
		.getSetCookie()
		.filter((c) => c.startsWith('session='))
		.map(
			(c) =>
				new Map(
					c
						.split(';')
						.slice(1)
						.map((a) => {
							const [name = '', value = ''] = a.trim().split('=');
							return [name.toLowerCase(), value.toLowerCase()] as const;
						})
				)
		);
}

/** GET nonce, verify (signed in) and logout: the Set-Cookie of each. */
async function cookieRoundTrip(base: string) {
	const nonce = await fetch(`${base}/api/auth/nonce`);
	const cookie = await signIn(base, member);
	const logout = await fetch(`${base}/api/auth/logout`, { method: 'POST', headers: { cookie, origin: base } });
	expect(logout.status).toBe(204);
	return [...sessionCookieAttributes(nonce), ...sessionCookieAttributes(logout)];
}

const PAGES = ['/', '/setup', '/no-such-page'];

describe('Safe App manifest and framing', { timeout: 120_000 }, () => {
	let closed: RunningServer;
	let framed: RunningServer;
	let proxy: RunningNginx | undefined;

	beforeAll(async () => {
		[closed, framed] = await Promise.all([
			startServer(),
			startServer({ env: { SAFE_APP_ORIGINS: ` ${SAFE} , ${LOCAL_PARENT}` } })
		]);
		if (NGINX_BIN) proxy = await startNginx({ upstream: `127.0.0.1:${framed.port}`, mode: 'enforce' });
	});
	afterAll(async () => {
		await proxy?.stop();
		await Promise.all([closed?.stop(), framed?.stop()]);
	});

	it('GET /manifest.json: name, description and icon from the branding, readable from any origin', async () => {
		for (const base of [closed.url, framed.url, ...(proxy ? [proxy.url] : [])]) {
			const response = await fetch(`${base}/manifest.json`, { headers: { origin: SAFE } });
			expect(response.status).toBe(200);
			expect(response.headers.get('content-type')).toMatch(/^application\/json/);
			expect(response.headers.get('access-control-allow-origin')).toBe('*');
			expect(await response.json()).toEqual({
				name: DEFAULT_BRANDING.name,
				description: DEFAULT_BRANDING.description,
				iconPath: 'favicon.svg'
			});
			// The icon it names is served, relative to the app's URL.
			const icon = await fetch(`${base}/favicon.svg`);
			expect(icon.status).toBe(200);
			expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
		}
		// Only the manifest is opened to other origins.
		expect((await fetch(`${framed.url}/`)).headers.get('access-control-allow-origin')).toBeNull();
		expect((await fetch(`${framed.url}/api/auth/me`)).headers.get('access-control-allow-origin')).toBeNull();
	});

	it("without SAFE_APP_ORIGINS: frame-ancestors 'none' on every page, the cookie SameSite=Lax and not Partitioned", async () => {
		for (const page of PAGES) expect(frameAncestors(await fetch(`${closed.url}${page}`)), page).toEqual(["'none'"]);
		const cookies = await cookieRoundTrip(closed.url);
		expect(cookies.length).toBeGreaterThanOrEqual(2);
		for (const attributes of cookies) {
			expect(attributes.get('samesite')).toBe('lax');
			expect(attributes.has('partitioned')).toBe(false);
			expect(attributes.has('httponly')).toBe(true);
		}
	});

	it('with SAFE_APP_ORIGINS: frame-ancestors names exactly those origins (also behind nginx), the cookie SameSite=None; Secure; Partitioned', async () => {
		for (const base of [framed.url, ...(proxy ? [proxy.url] : [])])
			for (const page of PAGES)
				expect(frameAncestors(await fetch(`${base}${page}`)), page).toEqual([SAFE, LOCAL_PARENT]);
		const signedInPage = await fetch(`${framed.url}/apply`, { headers: { cookie: await signIn(framed.url, member) } });
		expect(signedInPage.status).toBe(200);
		expect(frameAncestors(signedInPage)).toEqual([SAFE, LOCAL_PARENT]);

		const cookies = await cookieRoundTrip(framed.url);
		expect(cookies.length).toBeGreaterThanOrEqual(2);
		for (const attributes of cookies) {
			expect(attributes.get('samesite')).toBe('none');
			expect(attributes.has('secure')).toBe(true);
			expect(attributes.has('partitioned')).toBe(true);
			expect(attributes.has('httponly')).toBe(true);
		}
	});

	it('a SAFE_APP_ORIGINS entry that is not an https origin stops the server at start, naming it', async () => {
		// Each one would widen the policy: a wildcard, plain http, a path, and policy syntax smuggled in a host.
		const refused = [
			'*',
			'https://*.safe.global',
			'http://app.safe.global',
			'https://app.safe.global/apps',
			"https://a.b'unsafe-inline'",
			'https://a.b;script-src'
		];
		const servers = await Promise.all(
			refused.map((bad) => startServer({ env: { SAFE_APP_ORIGINS: `https://app.safe.global,${bad}` } }))
		);
		for (const [i, server] of servers.entries()) {
			expect(await server.exited, refused[i]).toBe(1);
			// The one fatal line is JSON (docs/observability.md, "Logs"): its words name the entry as given.
			const fatal = server
				.output()
				.split('\n')
				.find((line) => line.includes('"level":"fatal"'));
			expect((JSON.parse(fatal ?? '{}') as { msg?: string }).msg).toContain(`SAFE_APP_ORIGINS: "${refused[i]}"`);
		}
	});
});
