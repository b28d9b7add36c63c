// The community's look, in the portal (issue 59; docs/decisions/0050-an-accent-checked-as-used.md) through
// real HTTP on the built server, without JavaScript: /admin/settings saves the name, description, links,
// accent and logo, each text per locale, and every page, the favicon, the Safe App manifest show it on the
// next request; bad input of each kind is a 400 naming its field with nothing saved; the logo's bytes
// decide its type, an SVG is sanitised, and the served logo can never run as the portal's page.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrast } from '../../src/lib/branding/accent';
import { admin, member } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, type RunningServer } from '../helpers/server';
import { png } from '../helpers/png';
import { signIn } from '../helpers/siwe';

const buildersAdmin = privateKeyToAccount(generatePrivateKey());

const file = (bytes: Uint8Array | string, name: string, type: string) =>
	new File([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], name, { type });

describe.each(engines)('the community’s look on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	let owner: string;
	const save = (fields: Record<string, string | Blob>, cookie = owner) =>
		postForm(`${server.url}/admin/settings?/save`, fields, { cookie });
	const settingsPage = async () => (await getPage(`${server.url}/admin/settings`, owner)).body;
	/** Waits out the servers' one-second cache of the saved look (SETTINGS_CACHE_MS). */
	const nextSecond = () => new Promise((r) => setTimeout(r, 1_100));
	/** The fields as the page holds them, so that a save changes only what a test names. */
	const base = {
		name: 'Atlas Guild',
		description: 'Builders of public goods.',
		links: 'Forum | https://forum.example.org\nCode | https://github.com/atlas',
		accent: '#0052ff'
	};

	beforeAll(async () => {
		database = await seededDatabase(engine);
		await database.run(`insert into programs (slug, name) values ('builders', 'Builders');
			insert into team_members (address, role, program_id, added_by)
			select '${buildersAdmin.address.toLowerCase()}', 'admin', id, 'sql' from programs where slug = 'builders';`);
		server = await startServer({ env: { ...database.env, ADMIN_ADDRESSES: admin.address } });
		owner = await signIn(server.url, admin);
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it('is hidden as /admin is: the unknown path’s 404 to anyone but an admin of every programme, page and action', async () => {
		const programmeAdmin = await signIn(server.url, buildersAdmin);
		// Each caller's own unknown path: the header draws who is signed in.
		for (const cookie of [undefined, await signIn(server.url, member), programmeAdmin]) {
			const unknown = await getPage(`${server.url}/admin/no-such-page`, cookie);
			const page = await getPage(`${server.url}/admin/settings`, cookie);
			expect(page.status).toBe(404);
			expect(textOf(page.body)).toBe(textOf(unknown.body));
		}
		expect((await save({ ...base, name: 'Taken over' }, programmeAdmin)).status).toBe(404);
		const page = await settingsPage();
		expect(textOf(page)).toContain('Not saved yet');
		// The page says what an empty field falls back to: the configuration's name.
		expect(textOf(page)).toContain('Member portal');
	});

	it('a save shows on the next request: the pages, every locale’s words, the favicon, the manifest, the accent', async () => {
		const saved = await save({
			...base,
			'name.es': 'Gremio Atlas',
			'description.es': 'Constructores de bienes públicos.'
		});
		expect(saved.status).toBe(303);
		expect(saved.location).toBe('/admin/settings?done=saved');
		await nextSecond();

		const home = await getPage(`${server.url}/`);
		expect(home.status).toBe(200);
		expect(home.body).toMatch(/id="welcome"[^>]*><bdi>Atlas Guild<\/bdi><\/h1>/);
		expect(textOf(home.body)).toContain('Builders of public goods.');
		expect(home.body).toMatch(/<a href="https:\/\/forum\.example\.org\/"[^>]*><bdi>Forum<\/bdi><\/a>/);
		expect(home.body).toMatch(/<title>Atlas Guild<\/title>/);
		// The accent's tokens outweigh the build's (html:root over :root).
		expect(home.body).toContain('html:root{--accent:#0052ff;');

		const spanish = await getPage(`${server.url}/es`);
		expect(spanish.body).toMatch(/id="welcome"[^>]*><bdi>Gremio Atlas<\/bdi><\/h1>/);
		expect(textOf(spanish.body)).toContain('Constructores de bienes públicos.');
		// A locale without its own words shows the base ones.
		expect((await getPage(`${server.url}/ar`)).body).toMatch(/id="welcome"[^>]*><bdi>Atlas Guild<\/bdi><\/h1>/);
		// Every page's header, signed in or not.
		expect((await getPage(`${server.url}/setup`)).body).toMatch(/class="name[^"]*"[^>]*>Atlas Guild</);
		expect((await getPage(`${server.url}/admin`, owner)).body).toMatch(/class="name[^"]*"[^>]*>Atlas Guild</);

		const manifest = (await (await fetch(`${server.url}/manifest.json`)).json()) as Record<string, string>;
		expect(manifest).toMatchObject({ name: 'Atlas Guild', description: 'Builders of public goods.' });
		const favicon = await (await fetch(`${server.url}/favicon.svg`)).text();
		expect(favicon).toContain('fill="#0052ff"');
		expect(favicon).toContain('>A</text>');

		const page = (await getPage(`${server.url}${saved.location}`, owner)).body;
		expect(textOf(page)).toContain('Saved: every page shows it');
		expect(page).toMatch(/<td[^>]*>Community name, Description, Links, Accent colour, In other languages<\/td>/);
	});

	it('refuses an accent below its contrast, saying the ratio and the theme; nothing is saved', async () => {
		const background = { light: '#fafafb', dark: '#121216' };
		const ratio = (a: string, b: string) => `${(Math.floor(contrast(a, b) * 100) / 100).toFixed(2)}:1`;
		for (const [accent, theme] of [
			['#ffd700', 'light'],
			['#000080', 'dark'],
			['#000000', 'dark']
		] as const) {
			const refused = await save({ ...base, accent, name: 'Not saved' });
			expect(refused.status, accent).toBe(400);
			const text = textOf(refused.body);
			expect(text).toContain(
				`${accent} has a contrast of ${ratio(accent, background[theme])} against the ${theme} theme's background`
			);
			// The page keeps what was typed.
			expect(refused.body).toContain(`value="Not saved"`);
		}
		for (const bad of ['red', '#12345', '#gggggg', 'rgb(0,0,0)', '#0052ff;}body{display:none']) {
			const refused = await save({ ...base, accent: bad });
			expect(refused.status, bad).toBe(400);
			expect(textOf(refused.body)).toContain('Write the colour as # and six hexadecimal digits');
		}
		await nextSecond();
		const home = await getPage(`${server.url}/`);
		expect(home.body).toMatch(/id="welcome"[^>]*><bdi>Atlas Guild<\/bdi><\/h1>/);
		expect(home.body).toContain('html:root{--accent:#0052ff;');
	});

	it('refuses bad names, descriptions and links, each naming its field; markup stays text', async () => {
		const cases: [Record<string, string>, string][] = [
			[{ name: 'x'.repeat(61) }, 'Community name'],
			[{ name: 'Atlas\u0007Guild' }, 'Community name'],
			[{ name: 'Atlas\u202eGuild' }, 'Community name'],
			[{ description: 'y'.repeat(301) }, 'Description'],
			[{ 'name.es': 'z'.repeat(61) }, 'Name (Español)'],
			[{ links: 'Forum | https://forum.example.org\nEvil | javascript:alert(1)' }, 'Line 2'],
			[{ links: 'Plain | http://insecure.example.org' }, 'Line 1'],
			[{ links: 'https://no-label.example.org' }, 'Line 1'],
			[
				{ links: Array.from({ length: 9 }, (_, i) => `L${i} | https://e.example.org/${i}`).join('\n') },
				'At most 8 links'
			],
			[{ removeLogo: 'yes please' }, 'Tick the box to remove the logo']
		];
		for (const [fields, named] of cases) {
			const refused = await save({ ...base, ...fields });
			expect(refused.status, JSON.stringify(fields)).toBe(400);
			expect(textOf(refused.body), JSON.stringify(fields)).toContain(named);
		}
		const markup = '<img src=x onerror=alert(1)>';
		expect((await save({ ...base, name: markup })).status).toBe(303);
		await nextSecond();
		const home = await getPage(`${server.url}/`);
		expect(home.body).not.toContain(markup);
		expect(home.body).toContain('<bdi>&lt;img src=x onerror=alert(1)></bdi>');
		expect((await save(base)).status).toBe(303);
	});

	it('a logo: its bytes decide its type, an SVG is sanitised, served so it can never run; removed, it is gone', async () => {
		const image = png(16, [0, 82, 255]);
		expect((await save({ ...base, logo: file(image, 'logo.png', 'image/png') })).status).toBe(303);
		await nextSecond();
		const home = (await getPage(`${server.url}/`)).body;
		const href = /<img src="(\/logo\/[0-9a-f]{64})"/.exec(home)?.[1];
		expect(href).toBeDefined();
		expect(home).toContain(`<link rel="icon" href="${href}"`);
		const served = await fetch(`${server.url}${href}`);
		expect(served.status).toBe(200);
		expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(image))).toBe(true);
		expect(served.headers.get('content-type')).toBe('image/png');
		expect(served.headers.get('x-content-type-options')).toBe('nosniff');
		expect(served.headers.get('content-security-policy')).toContain('sandbox');
		expect(served.headers.get('cache-control')).toContain('immutable');
		// Under a locale prefix it is no route at all.
		expect((await fetch(`${server.url}/es${href}`)).status).toBe(404);

		const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"><script>alert(2)</script><a href="javascript:alert(3)"><rect width="10" height="10" fill="#0052ff"/></a><foreignObject><div>x</div></foreignObject><image href="https://evil.example/x.png"/></svg>`;
		expect((await save({ ...base, logo: file(svg, 'logo.svg', 'image/svg+xml') })).status).toBe(303);
		await nextSecond();
		const svgHref = /<img src="(\/logo\/[0-9a-f]{64})"/.exec((await getPage(`${server.url}/`)).body)?.[1];
		expect(svgHref).not.toBe(href);
		const cleaned = await fetch(`${server.url}${svgHref}`);
		expect(cleaned.headers.get('content-type')).toBe('image/svg+xml');
		const body = await cleaned.text();
		expect(body).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
		expect(body).toContain('<rect');
		for (const gone of ['script', 'onload', 'javascript:', 'foreignObject', 'evil.example', '<a'])
			expect(body).not.toContain(gone);
		// The old logo's address answers nothing once another is saved.
		expect((await fetch(`${server.url}${href}`)).status).toBe(404);

		const refusals: [Blob, string][] = [
			[file('<html><body>hi</body></html>', 'logo.png', 'image/png'), 'PNG, JPEG, WebP or SVG'],
			[file(Buffer.from('MZ\x90\x00 not an image'), 'logo.png', 'image/png'), 'PNG, JPEG, WebP or SVG'],
			[file('%PDF-1.7 a pdf', 'logo.pdf', 'application/pdf'), 'PNG, JPEG, WebP or SVG'],
			[file(new Uint8Array(600 * 1024).fill(0x89), 'big.png', 'image/png'), 'larger than 512 KiB'],
			[file('', 'empty.png', 'image/png'), 'PNG, JPEG, WebP or SVG'],
			[
				file(
					'<svg xmlns="http://www.w3.org/2000/svg"></svg><svg xmlns="http://www.w3.org/2000/svg"></svg>',
					'two.svg',
					'image/svg+xml'
				),
				'PNG, JPEG, WebP or SVG'
			],
			[
				file('<div><svg xmlns="http://www.w3.org/2000/svg"></svg></div>', 'wrapped.svg', 'image/svg+xml'),
				'PNG, JPEG, WebP or SVG'
			]
		];
		for (const [logo, says] of refusals) {
			const refused = await save({ ...base, logo });
			expect(refused.status, says + (logo as File).name).toBe(400);
			expect(textOf(refused.body)).toContain(says);
		}
		await nextSecond();
		expect((await getPage(`${server.url}/`)).body).toContain(`<img src="${svgHref}"`);

		expect((await save({ ...base, removeLogo: 'on' })).status).toBe(303);
		await nextSecond();
		const after = (await getPage(`${server.url}/`)).body;
		expect(after).toContain('<link rel="icon" href="/favicon.svg"');
		expect((await fetch(`${server.url}${svgHref}`)).status).toBe(404);
		const events = await settingsPage();
		expect(events).toMatch(/<td[^>]*>Logo<\/td>/);
	});

	it('a save that changes nothing writes no event; blank fields go back to the configuration’s', async () => {
		const before = (await settingsPage()).match(/<tr>/g)?.length ?? 0;
		const same = await save(base);
		expect(same.location).toBe('/admin/settings?done=unchanged');
		expect((await settingsPage()).match(/<tr>/g)?.length ?? 0).toBe(before);

		expect((await save({ name: '', description: '', links: '', accent: '' })).status).toBe(303);
		await nextSecond();
		const home = await getPage(`${server.url}/`);
		expect(home.body).toMatch(/id="welcome"[^>]*><bdi>Member portal<\/bdi><\/h1>/);
		expect(home.body).not.toContain('html:root{--accent');
	});
});
