// Each locale's pages over HTTP (docs/decisions/0043-translations-by-url-prefix.md): the locale from the path,
// <html lang dir> right on every page, the prerendered pages in every locale, links that stay in the
// locale, and a prefix before what is not a page answered as no route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, startListening } from '../helpers/auth';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const LOCALES = [
	['', 'en', 'ltr'],
	['/es', 'es', 'ltr'],
	['/pt-BR', 'pt-BR', 'ltr'],
	['/zh-Hans', 'zh-Hans', 'ltr'],
	['/ar', 'ar', 'rtl']
] as const;

const htmlTag = (body: string) => /<html[^>]*>/.exec(body)?.[0];

describe('pages in every locale', () => {
	let server: RunningServer;
	let cookie: string;
	beforeAll(async () => {
		server = await startListening();
		cookie = await signIn(server.url, member);
	});
	afterAll(() => server?.stop());

	const get = (path: string, headers: Record<string, string> = {}) =>
		fetch(`${server.url}${path}`, { headers, redirect: 'manual' });

	it.each(LOCALES)('%s: the home page, /setup, /apply and /checkin in %s, written %s', async (prefix, lang, dir) => {
		for (const path of [prefix || '/', `${prefix}/setup`, `${prefix}/apply`, `${prefix}/checkin`]) {
			const response = await get(path, { cookie });
			expect(response.status, path).toBe(200);
			const body = await response.text();
			expect(htmlTag(body), path).toBe(`<html lang="${lang}" dir="${dir}">`);
			// The header's links stay in the locale; the switcher offers every locale of the same page.
			expect(body, path).toContain(`href="${prefix}/apply"`);
			for (const [other] of LOCALES)
				expect(body, path).toContain(`hreflang="${LOCALES.find(([p]) => p === other)![1]}"`);
		}
	});

	it('the prerendered pages are files per locale, served with the security headers', async () => {
		for (const [prefix, lang] of LOCALES) {
			for (const path of [prefix || '/', `${prefix}/setup`]) {
				const response = await get(path);
				expect(response.status, path).toBe(200);
				expect(response.headers.get('content-security-policy'), path).toContain("default-src 'self'");
				expect(htmlTag(await response.text()), path).toContain(`lang="${lang}"`);
			}
		}
	});

	it('a prefix is the first segment, spelled as the locale is: other spellings are unknown paths', async () => {
		for (const path of ['/ES/apply', '/es-ES/apply', '/pt-br/apply', '/zh/apply', '/en/apply', '/es/es/apply'])
			expect((await get(path)).status, path).toBe(404);
		// An escaped letter is the same path (as everywhere else).
		const escaped = await get('/%65s/apply', { cookie });
		expect(escaped.status).toBe(200);
		expect(htmlTag(await escaped.text())).toBe('<html lang="es" dir="ltr">');
	});

	it('the API, files and operator paths are not under a prefix: no route', async () => {
		for (const path of [
			'/es/api/auth/nonce',
			'/ar/api/auth/me',
			'/es/healthz',
			'/zh-Hans/favicon.svg',
			'/es/metrics'
		]) {
			const response = await get(path);
			expect(response.status, path).toBe(404);
		}
		// The API itself answers as it always has.
		expect((await get('/api/auth/nonce')).status).toBe(200);
	});

	it('the API speaks English whatever page it is called from', async () => {
		const refuse = (headers: Record<string, string>) =>
			fetch(`${server.url}/api/auth/verify`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body: '{}'
			});
		const plain = await refuse({});
		const fromSpanish = await refuse({ referer: `${server.url}/es/setup`, 'accept-language': 'es' });
		expect(fromSpanish.status).toBe(400);
		const body = (await fromSpanish.json()) as { error: { code: string; message: string } };
		expect(body).toEqual(await plain.json());
		expect(body.error.code).toBe('invalid_request');
		expect(body.error.message).toMatch(/^The body must be/);
	});

	/** Every `href` of a page, as written (entities decoded as a browser does for `&amp;`). */
	const hrefs = (body: string) =>
		[...body.matchAll(/\shref="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
	/** Whether `href` is a page of this site in the locale of `prefix` (`/es`, or '' for English). */
	const inLocale = (href: string, prefix: string) => {
		const path = href.split(/[?#]/, 1)[0]!;
		const other = LOCALES.some(([p]) => p && p !== prefix && (path === p || path.startsWith(`${p}/`)));
		return prefix ? path === prefix || path.startsWith(`${prefix}/`) : !other;
	};
	// Not pages, so under no prefix: files, the API and the service worker's own.
	const NOT_A_PAGE = /^\/(?:_app|api|favicon\.svg|manifest\.json)(?:\/|$)|\.(?:csv|json)(?:\?|$)/;

	it.each(LOCALES)(
		'%s: every sign-in link of a signed-out page stays in %s, and so does the page it brings the member back to',
		async (prefix) => {
			for (const page of ['/', '/apply', '/checkin', '/inbox', '/review']) {
				const path = page === '/' ? prefix || '/' : `${prefix}${page}`;
				const body = await (await get(path)).text();
				const signIn = hrefs(body).filter((href) => /\/setup(?:$|\?)/.test(href.split('#', 1)[0]!));
				expect(signIn.length, path).toBeGreaterThan(0);
				for (const href of signIn) {
					expect(href.startsWith(`${prefix}/setup`), `${path}: ${href}`).toBe(true);
					const next = new URL(href, server.url).searchParams.get('next');
					// The home page's "Sign in to apply" comes back to /apply in the locale; the others to themselves.
					if (next !== null) expect(inLocale(next, prefix) && next !== prefix, `${path}: ${href}`).toBe(true);
				}
				if (page === '/')
					expect(signIn, path).toContain(`${prefix}/setup?next=${encodeURIComponent(`${prefix}/apply`)}`);
				// Every other internal link of the page too, but the switcher's (hreflang) and files.
				const switcher = new Set([...body.matchAll(/href="([^"]*)"[^>]*hreflang=/g)].map((match) => match[1]));
				for (const href of hrefs(body).filter((h) => h.startsWith('/') && !NOT_A_PAGE.test(h) && !switcher.has(h)))
					expect(inLocale(href, prefix), `${path}: ${href}`).toBe(true);
			}
		}
	);

	it('a link built from the request path is a path of this site, never another host (//host)', async () => {
		for (const [prefix] of LOCALES)
			for (const path of [`${prefix}//evil.example`, `${prefix}//evil.example/apply`, `${prefix}/%2F/evil.example`]) {
				const response = await get(path, { 'accept-language': 'en' });
				const body = await response.text();
				for (const href of hrefs(body).filter((h) => !h.startsWith('#') && !/^https?:/.test(h))) {
					expect(href, `${path}: ${href}`).toMatch(/^\/(?![/\\])/);
					const next = new URL(href, server.url).searchParams.get('next');
					if (next === null) continue;
					// The page /setup would send the member to after sign-in: no other host once the prefix is off.
					const unprefixed = next.replace(/^\/(?:es|pt-BR|zh-Hans|ar)(?=\/|$)/, '');
					expect(unprefixed, `${path}: ${href}`).toMatch(/^\/(?![/\\])/);
				}
			}
	});

	it('a signed-out visitor is sent to sign in within their locale', async () => {
		const body = await (await get('/es/apply')).text();
		expect(body).toContain('href="/es/setup?next=%2Fes%2Fapply"');
	});
});
