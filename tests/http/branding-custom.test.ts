// A community's own branding end to end: a second build made with all five PUBLIC_COMMUNITY_* /
// PUBLIC_ACCENT_COLOR settings (the README's example, with markup in the name to try the escaping),
// then its served HTML: <title>, the header, the meta description and Open Graph tags, the favicon,
// the links on the home page, the accent colour, and a CSP that lets the logo load from its site.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server';

const BRANDING = {
	PUBLIC_COMMUNITY_NAME: 'Lens <Garden> & "Friends"',
	PUBLIC_COMMUNITY_DESCRIPTION: 'Gardeners who fund public goods on Polygon. <script>alert(1)</script>',
	PUBLIC_COMMUNITY_LOGO_URL: 'https://cdn.lens.example/brand/logo.png',
	PUBLIC_ACCENT_COLOR: '#0a7f5a',
	PUBLIC_COMMUNITY_LINKS: 'Website=https://lens.example,Discord=https://discord.gg/lensgarden'
};
// Svelte escapes `<` and `&` in text (`>` alone opens nothing) and also `"` in attributes.
const NAME = 'Lens &lt;Garden> &amp; "Friends"';
const NAME_IN_ATTRIBUTE = 'Lens &lt;Garden> &amp; &quot;Friends&quot;';

const dir = path.resolve('.test-builds', `branding-${process.pid}`);
let server: RunningServer;

/** `vite build` with the branding, into a folder of its own (the usual build/ stays as it is). */
function build(): Promise<void> {
	mkdirSync(dir, { recursive: true });
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error'], {
			env: {
				...process.env,
				...BRANDING,
				PORTAL_BUILD_OUT: path.join(dir, 'build'),
				PORTAL_KIT_OUT: path.join(dir, 'kit')
			},
			stdio: ['ignore', 'ignore', 'pipe']
		});
		let errors = '';
		child.stderr.on('data', (c: Buffer) => (errors += String(c)));
		child.on('error', reject);
		child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build exited ${code}:\n${errors}`))));
	});
}

beforeAll(async () => {
	await build();
	server = await startServer({ entry: path.join(dir, 'build', 'index.js') });
}, 300_000);
afterAll(async () => {
	await server?.stop();
	if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

const get = (p: string) => fetch(`${server.url}${p}`);
const meta = (page: string, key: string) =>
	new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`).exec(page)?.[1];

describe('a build with a community’s own branding', () => {
	it.each([
		['/', NAME],
		['/setup', `Sign in · ${NAME}`]
	])('%s: the name in <title> and the header, the description, preview tags and the logo', async (p, title) => {
		const response = await get(p);
		expect(response.status).toBe(200);
		const page = await response.text();
		expect(page).toContain(`<title>${title}</title>`);
		// Markup in a setting is text, never markup.
		expect(page).not.toContain('<Garden>');
		expect(page).not.toContain('<script>alert(1)</script>');
		expect(meta(page, 'description')).toBe(
			'Gardeners who fund public goods on Polygon. &lt;script>alert(1)&lt;/script>'
		);
		expect(meta(page, 'og:site_name')).toBe(NAME_IN_ATTRIBUTE);
		expect(meta(page, 'og:title')).toBe(title.replace(NAME, NAME_IN_ATTRIBUTE));
		expect(meta(page, 'og:image')).toBe(BRANDING.PUBLIC_COMMUNITY_LOGO_URL);
		expect(page).toContain(`<link rel="icon" href="${BRANDING.PUBLIC_COMMUNITY_LOGO_URL}"`);
		const header = /<header[\s\S]*?<\/header>/.exec(page)?.[0] ?? '';
		expect(header).toContain(`<img src="${BRANDING.PUBLIC_COMMUNITY_LOGO_URL}"`);
		expect(header).toContain(`dir="auto">${NAME}</span></a>`);
		// The logo's site may serve images; nothing else is widened.
		const policy = response.headers.get('content-security-policy') ?? '';
		expect(policy).toMatch(/img-src 'self' data: https:\/\/cdn\.lens\.example(;| )/);
		expect(policy).toMatch(/connect-src 'self'(;|$)/);
	});

	it('the home page lists the community’s links and uses its accent colour', async () => {
		const page = await (await get('/')).text();
		expect(page).toContain('<a href="https://lens.example" rel="noopener"><bdi>Website</bdi></a>');
		expect(page).toContain('<a href="https://discord.gg/lensgarden" rel="noopener"><bdi>Discord</bdi></a>');
		const hrefs = [...page.matchAll(/href="([^"]+\.css)"/g)].map((m) => m[1]!);
		const styles = (await Promise.all(hrefs.map(async (href) => (await get(href)).text()))).join('\n');
		expect(styles).toContain('--accent:#0a7f5a');
	});

	it('an unknown path: the 404 page carries the name too', async () => {
		const response = await get('/no/such/page');
		expect(response.status).toBe(404);
		expect(await response.text()).toContain(`<title>Page not found · ${NAME}</title>`);
	});
});
