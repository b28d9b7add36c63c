// Hostile requests for the fuzz suite (tests/http/fuzz.test.ts): path spellings, query values, bodies,
// cookies and headers, each built so that no request the suite sends to a form action could be accepted.
import { request } from 'node:http';
import fc from 'fast-check';

export interface Sent {
	method: string;
	path: string;
	headers: Record<string, string>;
	body?: Buffer;
}
export interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/** One request on its own connection; a server that answers early and closes (413) is status 0. */
export function send(base: URL, { method, path, headers, body }: Sent): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const all = { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) };
		const req = request({ host: base.hostname, port: base.port, method, path, headers: all, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () =>
				resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() })
			);
		});
		req.on('error', (err: NodeJS.ErrnoException) =>
			err.code === 'EPIPE' || err.code === 'ECONNRESET' ? resolve({ status: 0, headers: {}, body: '' }) : reject(err)
		);
		req.end(method === 'GET' || method === 'HEAD' ? undefined : body);
	});
}

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'toLocaleString'];
const UUID = '00000000-0000-4000-8000-000000000000';

/** Values no query parameter expects: NUL and control characters, impossible cursors, prototype names. */
export const hostileValue = fc.oneof(
	fc.constantFrom(
		'ab%00',
		'%00',
		'a%01b%1fc%7f',
		'%C2%80x',
		'%ED%A0%80',
		'%FF%FE',
		'%zz',
		'%',
		`2026-02-30T00:00:00Z_${UUID}`,
		`2026-13-01T00:00:00Z_${UUID}`,
		`2026-11-22T24:00:00Z_${UUID}`,
		`0000-01-01T00:00:00Z_${UUID}`,
		`9999-12-31T23:59:59.999999Z_${UUID}`,
		'end',
		"'%3B--",
		'%3Cscript%3E',
		'=1%2B2',
		'x'.repeat(5000),
		...PROTOTYPE_NAMES,
		'review.__proto__'
	),
	fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent)
);

/** `/admin/x` as a client may spell it; the same spelling applied to an unknown path is the control. */
export const spelling = fc.constantFrom<(p: string) => string>(
	(p) => p,
	(p) => p.replace(/^\/(\w)/, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`),
	(p) => (p === '/' ? '/' : p.toUpperCase()),
	(p) => `/${p}`,
	(p) => p.replace(/^\//, '/./'),
	(p) => `${p}/`,
	(p) => `${p};x`,
	(p) => `${p === '/' ? '' : p}/__data.json`,
	(p) => `${p === '/' ? '' : p}/__data.json?x-sveltekit-invalidated=11`,
	// Under a locale prefix (docs/translations.md): pages in that locale, anything else no route.
	(p) => `/es${p === '/' ? '' : p}`,
	(p) => `/ar${p}`,
	(p) => `/%7Ah-Hans${p === '/' ? '' : p}/__data.json`
);

const GARBAGE = [
	'',
	'garbage',
	'Fe26.2**x*y*z',
	'__proto__',
	'a'.repeat(6000),
	'%00%ff',
	'Fe26.2*1*' + 'A'.repeat(200)
];
/** The identity's cookie, or a broken one in its place. */
export const cookieFor = (cookie: string | undefined) =>
	fc.oneof(
		{ weight: 4, arbitrary: fc.constant(cookie) },
		fc.constantFrom(...GARBAGE).map((g) => `session=${g}`),
		fc.constant(cookie ? `${cookie}; session=other` : 'session=; session=x'),
		fc.constant(cookie ? `${cookie}x` : undefined)
	);

/** Origin and Accept as browsers, scripts and attackers send them (the server's own origin most often). */
export const originAndAccept = (origin: string) =>
	fc.record({
		origin: fc.oneof(
			{ weight: 5, arbitrary: fc.constant(origin) },
			fc.constantFrom(undefined, 'null', 'http://evil.example', `${origin}.evil.example`)
		),
		accept: fc.constantFrom(
			undefined,
			'text/html',
			'application/json',
			'*/*',
			'x/y;;q=',
			'text/html, application/json'
		),
		action: fc.boolean()
	});

export interface Body {
	kind: string;
	contentType?: string;
	body: Buffer;
}

/** How one field is made unacceptable to every action: no text field of the portal takes any of these. */
const POISONS = ['nul', 'control', 'twice', 'file', 'too long'] as const;
type Poison = (typeof POISONS)[number];
const text = fc.string({ maxLength: 20 });

/** A form in which every field has a value (a plausible one, or a prototype name) and one is poisoned. */
function poisonedForm(fields: readonly string[]) {
	const names = fields.length ? fields : ['x'];
	return fc
		.record({
			values: fc.array(fc.oneof(text, fc.constantFrom(...PROTOTYPE_NAMES, 'review', 'approved', UUID)), {
				minLength: names.length,
				maxLength: names.length
			}),
			poisoned: fc.constantFrom(...names),
			poison: fc.constantFrom(...POISONS),
			extra: fc.constantFrom(...PROTOTYPE_NAMES, 'answers.__proto__', 'x'),
			multipart: fc.boolean(),
			invalidUtf8: fc.boolean()
		})
		.map(({ values, poisoned, poison, extra, multipart, invalidUtf8 }) => {
			const parts: [string, string, boolean][] = names.map((n, i) => [n, values[i]!, false]);
			const at = parts.findIndex(([n]) => n === poisoned);
			const poisonIt = (p: Poison): [string, string, boolean][] => {
				const v = parts[at]![1];
				if (p === 'nul') return [[poisoned, `${v}\u0000x`, false]];
				if (p === 'control') return [[poisoned, `${v}\u001b[2J`, false]];
				if (p === 'twice')
					return [
						[poisoned, v, false],
						[poisoned, v, false]
					];
				if (p === 'file') return [[poisoned, v, true]];
				return [[poisoned, 'x'.repeat(6000), false]];
			};
			const all = [
				...parts.slice(0, at),
				...poisonIt(poison),
				...parts.slice(at + 1),
				[extra, 'x', false] as [string, string, boolean]
			];
			const tail = invalidUtf8 ? '\u00ff\u00fe' : '';
			if (!multipart && poison !== 'file') {
				const body = all.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
				return {
					kind: `form, ${poison}`,
					contentType: 'application/x-www-form-urlencoded',
					body: Buffer.from(body + (invalidUtf8 ? '&x=%FF%FE' : ''))
				};
			}
			const b = 'fuzzboundary';
			const body =
				all
					.map(
						([n, v, file]) =>
							`--${b}\r\nContent-Disposition: form-data; name="${n}"${file ? '; filename="x.txt"\r\nContent-Type: text/plain' : ''}\r\n\r\n${v}${tail}\r\n`
					)
					.join('') + `--${b}--\r\n`;
			return {
				kind: `multipart, ${poison}`,
				contentType: `multipart/form-data; boundary=${b}`,
				body: Buffer.from(body, invalidUtf8 ? 'latin1' : 'utf8')
			};
		});
}

/** Bodies of the wrong kind: other types, broken multipart, JSON of any shape, huge, empty, invalid UTF-8. */
const wrongBody: fc.Arbitrary<Body> = fc.oneof(
	fc
		.record({
			type: fc.constantFrom(
				'text/plain',
				'application/octet-stream',
				'application/xml',
				'application/x-sveltekit-formdata',
				undefined
			),
			bytes: fc.uint8Array({ maxLength: 200 })
		})
		.map(({ type, bytes }) => ({ kind: `bytes as ${type}`, contentType: type, body: Buffer.from(bytes) })),
	fc
		.constantFrom('multipart/form-data', 'multipart/form-data; boundary=x', 'multipart/form-data; boundary=')
		.map((type) => ({
			kind: 'broken multipart',
			contentType: type,
			body: Buffer.from('--x\r\nContent-Disposition: form-data; name="note"\r\n\r\nabc')
		})),
	fc
		.jsonValue({ maxDepth: 3 })
		.map((v) => ({ kind: 'json', contentType: 'application/json', body: Buffer.from(JSON.stringify(v) ?? 'null') })),
	fc
		.constantFrom(
			'{"__proto__":{"isAdmin":true},"message":"x","signature":"0x00"}',
			'{"constructor":{"prototype":{}}}',
			'{"message":["a"],"signature":{}}',
			'{"message":',
			'\u0000',
			'[]',
			'null'
		)
		.map((s) => ({ kind: 'hostile json', contentType: 'application/json', body: Buffer.from(s) })),
	fc
		.constantFrom('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x')
		.map((type) => ({ kind: 'huge', contentType: type, body: Buffer.alloc(600 * 1024, 'a') })),
	fc.constant({
		kind: 'invalid utf-8',
		contentType: 'application/x-www-form-urlencoded; charset=utf-8',
		body: Buffer.from([0x6e, 0x6f, 0x74, 0x65, 0x3d, 0xff, 0xc0, 0x80, 0x00])
	})
);

/** A body for a target reading these form fields: one that cannot be accepted. */
export const hostileBody = (fields: readonly string[]) =>
	fc.oneof({ weight: 2, arbitrary: poisonedForm(fields) }, wrongBody);

/**
 * A body of about `bytes` bytes made only of distinct field names, each one of the action's own with a
 * number after it (`answers.city.17`, `score.fit.17`): the shape that made reading a form quadratic
 * (issue 39). URL-encoded, or multipart with `multipart: true`.
 */
export function distinctNames(fields: readonly string[], bytes: number, multipart = false): Body {
	const names = fields.length ? fields : ['field'];
	const parts: string[] = [];
	const boundary = 'cost-of-many-names';
	let size = 0;
	for (let i = 0; size < bytes - 200; i++) {
		const name = `${names[i % names.length]}.${i}`;
		const part = multipart
			? `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n1\r\n`
			: `${encodeURIComponent(name)}=1`;
		parts.push(part);
		size += part.length + 1;
	}
	return multipart
		? {
				kind: `${bytes} bytes of distinct names, multipart`,
				contentType: `multipart/form-data; boundary=${boundary}`,
				body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`)
			}
		: {
				kind: `${bytes} bytes of distinct names`,
				contentType: 'application/x-www-form-urlencoded',
				body: Buffer.from(parts.join('&'))
			};
}
