// /admin answers anyone who is not an admin exactly as an unknown path does, for every spelling of
// the path, method and content type (docs/pages-and-forms.md "Who sees /admin").
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member, startListening } from '../helpers/auth';
import { withoutNonces } from '../helpers/csp';
import { sendAsSpelled, type SentAsSpelled } from '../helpers/raw-http';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

/** Each spelling of a path under /admin, next to the same spelling of a path that does not exist. */
const SPELLINGS: [admin: string, unknown: string][] = [
	['/admin', '/nope'],
	['/admin/', '/nope/'],
	['/admin//', '/nope//'],
	['/%61dmin', '/%6Eope'],
	['/%61dmin/', '/%6Eope/'],
	['/%61%64%6d%69%6e', '/%6e%6f%70%65'],
	['/ADMIN', '/NOPE'],
	['/Admin/', '/Nope/'],
	['/admin?/transition', '/nope?/transition'],
	['/admin?/bulk', '/nope?/bulk'],
	['/ADMIN?/bulk', '/NOPE?/bulk'],
	[
		'/admin/applications/00000000-0000-4000-8000-000000000000?/transition',
		'/nope/applications/00000000-0000-4000-8000-000000000000?/transition'
	],
	['/admin/__data.json', '/nope/__data.json'],
	// The route a link leads to, which the browser asks the server (`router.resolution: 'server'`).
	['/admin/__route.js', '/nope/__route.js'],
	['/%61dmin/__route.js', '/%6Eope/__route.js'],
	['/admin/form/__route.js', '/nope/form/__route.js'],
	['/ADMIN/__route.js', '/NOPE/__route.js'],
	['/es/admin/__route.js', '/es/nope/__route.js'],
	['/ar/review/__route.js', '/ar/nope/__route.js'],
	['/metrics/__route.js', '/nope/__route.js'],
	['/%61dmin/__data.json', '/%6Eope/__data.json'],
	['/admin/__data.json?x-sveltekit-trailing-slash=1', '/nope/__data.json?x-sveltekit-trailing-slash=1'],
	['/admin/allowlist.csv', '/nope/allowlist.csv'],
	['/admin/allowlist.csv/', '/nope/allowlist.csv/'],
	['/%61dmin/allowlist%2Ecsv', '/%6Eope/allowlist%2Ecsv'],
	['/admin/no-such-page', '/nope/no-such-page'],
	['/admin/insights', '/nope/insights'],
	['/%61dmin/insights/', '/%6Eope/insights/'],
	['/admin/insights/__data.json', '/nope/insights/__data.json'],
	['/admin/programs', '/nope/programs'],
	['/admin/messages', '/nope/messages'],
	['/admin/messages?/save', '/nope/messages?/save'],
	['/%61dmin/messages/__data.json', '/%6Eope/messages/__data.json'],
	['/admin?/message', '/nope?/message'],
	['/es/admin/messages?/reset', '/es/nope/messages?/reset'],
	['/admin/settings', '/nope/settings'],
	['/admin/settings?/save', '/nope/settings?/save'],
	['/ar/admin/settings?/save', '/ar/nope/settings?/save'],
	['/admin/team', '/nope/team'],
	['/admin/team?/add', '/nope/team?/add'],
	['/%61dmin/team/__data.json', '/%6Eope/team/__data.json'],
	['/ar/admin/team?/remove', '/ar/nope/team?/remove'],
	['/admin/team?/name', '/nope/team?/name'],
	['/es/admin/team?/name', '/es/nope/team?/name'],
	// Under every locale prefix (docs/translations.md), however spelled; /review is hidden to a member too.
	['/es/admin', '/es/nope'],
	['/es/admin/', '/es/nope/'],
	['/es//admin', '/es//nope'],
	['/%65s/admin', '/%65s/nope'],
	['/ar/%61dmin', '/ar/%6Eope'],
	['/pt-BR/admin?/bulk', '/pt-BR/nope?/bulk'],
	['/zh-Hans/admin/__data.json', '/zh-Hans/nope/__data.json'],
	['/es/admin/allowlist.csv', '/es/nope/allowlist.csv'],
	['/ar/admin/insights', '/ar/nope/insights'],
	['/ar/admin/programs?/archive', '/ar/nope/programs?/archive'],
	['/ar/review', '/ar/nope'],
	['/zh-Hans/%72eview/', '/zh-Hans/%6Eope/'],
	['/es/metrics', '/es/nope'],
	['/es/api/cron/webhooks', '/es/api/nope/webhooks']
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const BOUNDARY = '----portal-test';
const BODIES: Record<string, { headers: Record<string, string>; body?: string }> = {
	none: { headers: {} },
	form: {
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: 'applicationId=x&applicationIds=00000000-0000-4000-8000-000000000000&field=review&to=approved&confirm=yes'
	},
	multipart: {
		headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
		body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="field"\r\n\r\nreview\r\n--${BOUNDARY}--\r\n`
	},
	// What an enhanced form (use:enhance) sends and accepts.
	json: {
		headers: { 'content-type': 'application/json', accept: 'application/json', 'x-sveltekit-action': 'true' },
		body: '{"field":"review"}'
	}
};
// Headers that differ between any two answers (connection and keep-alive are compared: issue #32;
// x-request-id is each request's own id, docs/observability.md).
const VOLATILE = new Set(['date', 'etag', 'x-request-id']);

// Pages carry a per-request CSP nonce (docs/security.md): blanked in both, everything else compared.
const comparable = ({ status, headers, body }: SentAsSpelled) => ({
	status,
	headers: Object.fromEntries(
		Object.entries(headers)
			.filter(([name]) => !VOLATILE.has(name))
			.map(([name, value]) => [name, typeof value === 'string' ? withoutNonces(value) : value])
	),
	body: withoutNonces(body)
});

describe('/admin for anyone who is not an admin', () => {
	let server: RunningServer;
	let memberCookie: string;
	let adminCookie: string;
	beforeAll(async () => {
		server = await startListening({ ADMIN_ADDRESSES: admin.address });
		memberCookie = await signIn(server.url, member);
		adminCookie = await signIn(server.url, admin);
	});
	afterAll(() => server?.stop());

	it.each([
		['a visitor', () => ({})],
		['a member', () => ({ cookie: memberCookie })]
	] as const)(
		'%s gets for every spelling, method and content type what the same spelling of an unknown path gets',
		async (_who, cookie) => {
			const base = new URL(server.url);
			const differences: string[] = [];
			let compared = 0;
			for (const [hidden, unknown] of SPELLINGS) {
				for (const method of METHODS) {
					for (const [kind, { headers, body }] of Object.entries(BODIES)) {
						const sent = method === 'GET' || method === 'HEAD' ? undefined : body;
						const all = { ...headers, ...cookie() };
						const [a, b] = await Promise.all([
							sendAsSpelled(base, method, hidden, all, sent),
							sendAsSpelled(base, method, unknown, all, sent)
						]);
						compared++;
						try {
							expect(comparable(a)).toEqual(comparable(b));
						} catch {
							differences.push(`${method} ${hidden} (${kind}): ${a.status} where ${unknown} answers ${b.status}`);
						}
					}
				}
			}
			expect(differences).toEqual([]);
			expect(compared).toBe(SPELLINGS.length * METHODS.length * Object.keys(BODIES).length);
		},
		// About 1,100 pairs of requests: 30 s was near the edge on two shared cores.
		60_000
	);

	it('an admin still reaches /admin and its CSV (the control: the spellings above do lead to them)', async () => {
		const base = new URL(server.url);
		const page = await sendAsSpelled(base, 'GET', '/%61dmin', { cookie: adminCookie });
		expect(page.status).toBe(200);
		const spanish = await sendAsSpelled(base, 'GET', '/es/admin', { cookie: adminCookie });
		expect(spanish.status).toBe(200);
		expect(spanish.body).toContain('<html lang="es" dir="ltr">');
		// The browser's question of which route /admin/form is: answered for an admin, never kept by a cache.
		const route = await sendAsSpelled(base, 'GET', '/admin/form/__route.js', { cookie: adminCookie });
		expect(route.status).toBe(200);
		expect(route.body).toContain('"/admin/form"');
		expect(route.headers['cache-control']).toBe('private, no-store');
		const csv = await sendAsSpelled(base, 'GET', '/admin/allowlist.csv', { cookie: adminCookie });
		expect(csv.status).toBe(200);
		expect(csv.headers['content-type']).toMatch(/^text\/csv/);
		// The bulk action is there for an admin: the id names no application (400), where others get 404.
		const bulk = await sendAsSpelled(
			base,
			'POST',
			'/admin?/bulk',
			{ ...BODIES.form!.headers, accept: 'text/html', cookie: adminCookie },
			BODIES.form!.body
		);
		expect(bulk.status).toBe(400);
		expect(bulk.body).toContain('No application has the id 00000000-0000-4000-8000-000000000000.');
	});

	it.each([
		['HTTP/1.0 (curl -0)', 'HTTP/1.0', ''],
		['HTTP/1.1 asking to close', 'HTTP/1.1', 'Connection: close\r\n'],
		['HTTP/1.1 keep-alive', 'HTTP/1.1', 'Connection: keep-alive\r\n']
	])(
		'%s: the same head and body as an unknown path, and the connection handled the same way',
		async (_how, version, extra) => {
			const port = Number(new URL(server.url).port);
			for (const [hidden, unknown] of [
				['/admin', '/nope'],
				['/%61dmin/allowlist.csv', '/%6Eope/allowlist.csv']
			] as const) {
				const [a, b] = await Promise.all(
					[hidden, unknown].map((path) => exchange(port, `GET ${path} ${version}\r\nHost: 127.0.0.1\r\n${extra}\r\n`))
				);
				expect(stable(a!.text)).toBe(stable(b!.text));
				expect(a!.closedByServer, hidden).toBe(b!.closedByServer);
				if (version === 'HTTP/1.0' || extra.includes('close')) expect(a!.closedByServer).toBe(true);
			}
		}
	);
});

// The date, the request id, and the etag and nonces that differ between any two renderings of a page.
const stable = (text: string) => withoutNonces(text.replace(/^(date|etag|x-request-id): .*$/gim, '$1:'));

/** Writes `head` on a new socket; what came back within a second, and whether the server closed the socket. */
function exchange(port: number, head: string): Promise<{ text: string; closedByServer: boolean }> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		const socket = connect(port, '127.0.0.1', () => socket.write(head));
		const timer = setTimeout(() => {
			socket.destroy();
			resolve({ text: Buffer.concat(chunks).toString(), closedByServer: false });
		}, 1000);
		socket.on('data', (c: Buffer) => chunks.push(c));
		socket.on('error', reject);
		socket.on('end', () => {
			clearTimeout(timer);
			socket.destroy();
			resolve({ text: Buffer.concat(chunks).toString(), closedByServer: true });
		});
	});
}
