// What the build embeds from PUBLIC_COMMUNITY_* / PUBLIC_ACCENT_COLOR reaches the served HTML:
// <title>, the header, the meta description and Open Graph tags (docs/configuration.md "Branding").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from 'vite';
import { accentTokens } from '../../src/lib/branding/accent';
import { logoHref, parseBranding } from '../../src/lib/branding/branding';
import { startServer, type RunningServer } from '../helpers/server';

// The branding this build was made with: the same reading vite.config.ts does.
const branding = parseBranding(loadEnv('production', process.cwd(), ['PUBLIC_COMMUNITY_', 'PUBLIC_ACCENT_COLOR']));
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

let server: RunningServer;
beforeAll(async () => {
	server = await startServer();
});
afterAll(() => server?.stop());

const html = async (path: string) => (await fetch(`${server.url}${path}`)).text();
const meta = (page: string, key: string) =>
	new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`).exec(page)?.[1];

describe('branding in the served HTML', () => {
	it.each([
		['/', branding.name],
		['/setup', `Sign in · ${branding.name}`]
	])('%s carries the name in <title>, the header, and the description and Open Graph tags', async (path, title) => {
		const page = await html(path);
		expect(page).toContain(`<title>${escape(title)}</title>`);
		expect(meta(page, 'description')).toBe(escape(branding.description));
		expect(meta(page, 'og:title')).toBe(escape(title));
		expect(meta(page, 'og:description')).toBe(escape(branding.description));
		expect(meta(page, 'og:site_name')).toBe(escape(branding.name));
		expect(page).toMatch(
			new RegExp(`<link rel="icon" href="[^"]*${logoHref(branding).replace(/[.?*+^$()[\]\\/]/g, '\\$&')}"`)
		);
		const header = /<header[\s\S]*?<\/header>/.exec(page)?.[0] ?? '';
		expect(header).toContain(`dir="auto">${escape(branding.name)}</span></a>`);
		expect(header).toMatch(/<img src="[^"]*(favicon\.svg|logo)[^"]*"/);
	});

	it('an unknown path: a 404 page titled with the name, no preview tags', async () => {
		const response = await fetch(`${server.url}/no/such/page`);
		expect(response.status).toBe(404);
		const page = await response.text();
		expect(page).toContain(`<title>Page not found · ${escape(branding.name)}</title>`);
		expect(meta(page, 'og:title')).toBeUndefined();
	});

	it('serves the monogram and the accent colours the build computed', async () => {
		const svg = await fetch(`${server.url}/favicon.svg`);
		expect(svg.headers.get('content-type')).toContain('image/svg+xml');
		expect(await svg.text()).toContain(`fill="${branding.accent}"`);
		const hrefs = [...(await html('/')).matchAll(/href="([^"]+\.css)"/g)].map((m) => m[1]!);
		const styles = (
			await Promise.all(hrefs.map(async (href) => (await fetch(new URL(href, `${server.url}/`))).text()))
		).join('\n');
		const tokens = accentTokens(branding.accent);
		// The minifier may shorten #aabbcc to #abc.
		const short = (hex: string) => hex.replace(/^#(.)\1(.)\2(.)\3$/, '#$1$2$3');
		expect(styles).toContain(`--accent:${short(tokens.accent)};--on-accent:${short(tokens.onAccent)}`);
		expect(styles).toContain(`--accent-strong:${short(tokens.dark.accentStrong)}`);
	});
});
