// Bad bodies of every kind at every endpoint and form action, as a visitor, a member and an admin:
// malformed, truncated, oversized and wrongly typed. Never a 5xx, never a change to the data
// (docs/pages-and-forms.md "Status codes"). The per-address counters are left out: an action spends its
// limit before it validates (guard → limit → validate), by design.
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { signIn } from '../helpers/siwe';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';

/** Every endpoint and action, with the form fields it reads. */
const TARGETS: { path: string; fields: string[] }[] = [
	{ path: '/api/auth/verify', fields: ['message', 'signature'] },
	{ path: '/api/auth/nonce', fields: [] },
	{ path: '/api/auth/me', fields: [] },
	{ path: '/api/auth/logout', fields: [] },
	{ path: '/healthz', fields: [] },
	{ path: '/apply', fields: ['displayName', 'motivation', 'contact'] },
	{ path: '/checkin', fields: ['note'] },
	{ path: '/admin?/transition', fields: ['applicationId', 'field', 'to', 'reason', 'txHash', 'from'] },
	{ path: '/admin?/bulk', fields: ['applicationIds', 'field', 'to', 'reason', 'txHash', 'from', 'confirm'] },
	{ path: '/admin/allowlist.csv', fields: [] },
	{ path: '/', fields: [] },
	{ path: '/setup', fields: [] }
];
const METHODS = ['POST', 'POST', 'POST', 'GET', 'PUT', 'PATCH', 'DELETE'];

interface Body {
	kind: string;
	contentType?: string;
	body: Buffer;
}

const text = fc.string({ unit: 'binary', maxLength: 40 });
const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,30}$/);

/** A multipart part; `file` makes it a file upload where the action expects text. */
const part = (b: string, name: string, value: string, file = false) =>
	`--${b}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="x.txt"\r\nContent-Type: text/plain' : ''}\r\n\r\n${value}\r\n`;

/** Bodies that no form or JSON client sends, for a target with these fields. */
function badBodies(fields: string[]): fc.Arbitrary<Body> {
	const names = fields.length ? fc.constantFrom(...fields) : text;
	return fc.oneof(
		// Multipart that does not parse: wrong or missing boundary, cut off, garbage.
		fc.record({ b: boundary, name: names, value: text, cut: fc.nat(200) }).map(({ b, name, value, cut }) => {
			const whole = part(b, name, value) + `--${b}--\r\n`;
			return {
				kind: 'truncated multipart',
				contentType: `multipart/form-data; boundary=${b}`,
				body: Buffer.from(whole.slice(0, Math.min(cut, whole.length - 3)))
			};
		}),
		fc.record({ b: boundary, other: boundary, name: names, value: text }).map(({ b, other, name, value }) => ({
			kind: 'multipart with another boundary',
			contentType: `multipart/form-data; boundary=${b}x`,
			body: Buffer.from(part(other, name, value) + `--${other}--\r\n`)
		})),
		fc.uint8Array({ maxLength: 300 }).map((bytes) => ({
			kind: 'multipart without a boundary',
			contentType: 'multipart/form-data',
			body: Buffer.from(bytes)
		})),
		// Multipart that parses, with every field the action reads sent as a file or twice.
		fc.record({ b: boundary, value: text, asFile: fc.boolean() }).map(({ b, value, asFile }) => ({
			kind: asFile ? 'fields as files' : 'fields twice',
			contentType: `multipart/form-data; boundary=${b}`,
			body: Buffer.from(
				(fields.length ? fields : ['x'])
					.map((f) => part(b, f, value, asFile) + (asFile ? '' : part(b, f, value)))
					.join('') + `--${b}--\r\n`
			)
		})),
		// URL-encoded with every field twice (never one piece of text), and invalid percent escapes.
		fc.record({ value: text, junk: fc.constantFrom('%', '%zz', '%E0%A4%A', '&&==', '') }).map(({ value, junk }) => ({
			kind: 'urlencoded fields twice',
			contentType: 'application/x-www-form-urlencoded',
			body: Buffer.from(
				(fields.length ? fields : ['x'])
					.flatMap((f) => [`${f}=${encodeURIComponent(value)}${junk}`, `${f}=${junk}`])
					.join('&')
			)
		})),
		// Other types: text/plain (which SvelteKit lets through to the action), JSON of any shape, bytes.
		fc
			.record({
				type: fc.constantFrom(
					'text/plain',
					'application/octet-stream',
					'application/xml',
					'text/html; charset=utf-8',
					undefined
				),
				bytes: fc.uint8Array({ maxLength: 300 })
			})
			.map(({ type, bytes }) => ({ kind: `bytes as ${type}`, contentType: type, body: Buffer.from(bytes) })),
		fc.jsonValue({ maxDepth: 3 }).map((value) => ({
			kind: 'json',
			contentType: 'application/json',
			body: Buffer.from(JSON.stringify(value) ?? 'null')
		})),
		fc
			.constantFrom(
				'{"message":',
				'{"message":1,"signature":[]}',
				'{"message":"x","signature":"0x1"}',
				'\u0000',
				'\xff\xfe'
			)
			.map((s) => ({ kind: 'broken json', contentType: 'application/json', body: Buffer.from(s, 'latin1') })),
		// Over the server's body limit (BODY_SIZE_LIMIT, 512 KiB by default) and over verify's 8 KiB.
		fc
			.constantFrom('multipart/form-data; boundary=x', 'application/json', 'application/x-www-form-urlencoded')
			.map((type) => ({ kind: `oversized ${type}`, contentType: type, body: Buffer.alloc(600 * 1024, 'a') })),
		fc.constant({
			kind: 'verify over 8 KiB',
			contentType: 'application/json',
			body: Buffer.from(JSON.stringify({ message: 'a'.repeat(9000), signature: '0x00' }))
		})
	);
}

function send(base: URL, method: string, path: string, cookie: string | undefined, body: Body, chunked: boolean) {
	return new Promise<{ status: number; text: string }>((resolve, reject) => {
		const headers: Record<string, string | number> = { origin: base.origin };
		if (body.contentType) headers['content-type'] = body.contentType;
		if (cookie) headers.cookie = cookie;
		// A GET sends no body. One that declared a length and never sent it would leave the server waiting
		// for it on that connection, and the next request there would be read as that body.
		const sent = method === 'GET' ? undefined : body.body;
		if (!chunked && sent) headers['content-length'] = sent.length;
		const req = request({ host: base.hostname, port: base.port, method, path, headers }, (res) => {
			let text = '';
			res.on('data', (c: Buffer) => (text += c.toString()));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
		});
		// The server may answer (413) and close before the whole body is written.
		req.on('error', (err: NodeJS.ErrnoException) =>
			err.code === 'EPIPE' || err.code === 'ECONNRESET' ? resolve({ status: 0, text: err.code }) : reject(err)
		);
		req.end(sent);
	});
}

describe('bad bodies at every endpoint and action', () => {
	let portal: OwnDatabasePortal;
	const cookies: Record<string, string | undefined> = { visitor: undefined };
	beforeAll(async () => {
		portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
		cookies.member = await signIn(portal.url, member);
		cookies.admin = await signIn(portal.url, admin);
	}, 120_000);
	afterAll(() => portal?.stop());

	it('never answer 5xx and never change the data', async () => {
		const before = await portal.rowCounts();
		const base = new URL(portal.url);
		const seen = new Map<string, number>();
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...TARGETS).chain((target) =>
					fc.record({
						target: fc.constant(target),
						method: fc.constantFrom(...METHODS),
						who: fc.constantFrom('visitor', 'member', 'admin'),
						body: badBodies(target.fields),
						chunked: fc.boolean()
					})
				),
				async ({ target, method, who, body, chunked }) => {
					const { status, text } = await send(base, method, target.path, cookies[who], body, chunked);
					seen.set(body.kind, (seen.get(body.kind) ?? 0) + 1);
					const what = `${method} ${target.path} as ${who}, ${body.kind}: ${status} ${text.slice(0, 200)}`;
					// The server may answer (413, 405) without reading the body and close: then it must still serve.
					if (status === 0) expect((await fetch(`${portal.url}/healthz`)).status, what).toBe(200);
					else expect(status, what).toBeLessThan(500);
				}
			),
			{ numRuns: 200 }
		);
		expect(await portal.rowCounts()).toEqual(before);
		// Each kind of bad body was tried.
		expect(seen.size).toBeGreaterThanOrEqual(10);
		expect(portal.output()).not.toMatch(/Internal Error|at async/);
	}, 120_000);

	// The parser reports a text part cut off by the body's end on that part, and the refusal then ends every part
	// still open: a part told twice must not take the server down (seed 343915937 of the property above found it).
	it('a form cut off at every byte, inside its text parts too: a clear answer each time, and the server still serves', async () => {
		const before = await portal.rowCounts();
		const base = new URL(portal.url);
		const b = 'cut';
		const whole = part(b, 'displayName', 'Ada Lovelace') + part(b, 'motivation', 'x'.repeat(40)) + `--${b}--\r\n`;
		for (let cut = 1; cut < whole.length - 3; cut++) {
			const body = {
				kind: 'truncated multipart',
				contentType: `multipart/form-data; boundary=${b}`,
				body: Buffer.from(whole.slice(0, cut))
			};
			const { status, text } = await send(base, 'POST', '/apply', cookies.member, body, false);
			const what = `cut at ${cut}: ${status} ${text.slice(0, 200)}`;
			if (status === 0) expect((await fetch(`${portal.url}/healthz`)).status, what).toBe(200);
			else expect(status, what).toBeGreaterThanOrEqual(400);
			expect(status, what).toBeLessThan(500);
		}
		expect((await fetch(`${portal.url}/healthz`)).status).toBe(200);
		expect(await portal.rowCounts()).toEqual(before);
		expect(portal.output()).not.toMatch(/Internal Error|at async|Unhandled 'error'/);
	}, 60_000);
});
