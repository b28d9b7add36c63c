// POST /api/auth/verify refuses cheaply what no honest client sends (docs/sign-in.md "Before
// parsing" and "Bounding the parser"): each refusal is a 401 with its code, drops the nonce and
// writes nothing. What each costs is in bench/ (the verify-cost scenario).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, member, stranger } from '../helpers/auth';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { buildMessage, fetchNonce, postVerify, sessionCookieFrom } from '../helpers/siwe';

type Make = (nonce: string, host: string) => Promise<{ message: string; signature: string }>;

/** The stranger's message for the server at `host`, `edit`ed, then signed (so only the bounds refuse it). */
const signed =
	(edit: (message: string, nonce: string, host: string) => string = (m) => m): Make =>
	async (nonce, host) => {
		const message = edit(
			buildMessage({ domain: host, uri: `http://${host}`, nonce, address: stranger.address }),
			nonce,
			host
		);
		return { message, signature: await stranger.signMessage({ message }) };
	};
const withResources = (message: string, n: number) =>
	`${message}\nResources:\n${Array.from({ length: n }, (_, i) => `- https://r.example/${i}`).join('\n')}`;

const CASES: [label: string, code: string, make: Make, cookie: boolean][] = [
	// Checked first: with no nonce in the cookie nothing past the body's JSON shape is read.
	[
		'no nonce in the cookie, a 7.8 KB message',
		'nonce_mismatch',
		async (nonce, host) => ({ ...(await signed()(nonce, host)), message: `${'a.'.repeat(3900)} wants you to sign in` }),
		false
	],
	// Signed, on the right host, and out of the grammar only at their last character: the scanners
	// read the 7.7 KB of a URI-like field in one pass before the grammar refuses them (before issue 25's
	// scanners the reference parser spent 15 ms on each).
	[
		'a signed 7.7 KB message whose URI path is slashes, then a quote',
		'message_malformed',
		signed((m, _n, host) => m.replace(`URI: http://${host}`, `URI: http://${host}/${'/'.repeat(7500)}"`)),
		true
	],
	[
		'a signed 7.7 KB message whose resource is a dotted host, then a space',
		'message_malformed',
		signed((m) => `${m}\nResources:\n- https://${'1.'.repeat(3800)}a `),
		true
	],
	[
		'a message without a Nonce line',
		'message_malformed',
		signed((m, n) => m.replace(`Nonce: ${n}`, `Nonce-ish: ${n}`)),
		true
	],
	[
		"a message whose Nonce line is not the cookie's",
		'nonce_mismatch',
		signed((m, n) => m.replace(`Nonce: ${n}`, 'Nonce: abcdefgh12345678')),
		true
	]
];

describe('POST /api/auth/verify: the cheap refusals', () => {
	let portal: OwnDatabasePortal;
	let host: string;
	beforeAll(async () => {
		portal = await startPortalOnOwnDatabase();
		host = new URL(portal.url).host;
	}, 120_000);
	afterAll(() => portal?.stop());

	it('each is a 401 with its code and drops the nonce; none writes to the database', async () => {
		const before = await portal.rowCounts();
		for (const [label, code, make, withCookie] of CASES) {
			const { nonce, cookie } = await fetchNonce(portal.url);
			const response = await postVerify(portal.url, await make(nonce, host), withCookie ? cookie : undefined);
			expect(response.status, label).toBe(401);
			expect(await errorCode(response), label).toBe(code);
			expect(sessionCookieFrom(response), label).toBe('');
		}
		expect(await portal.rowCounts()).toEqual(before);
	}, 120_000);

	it('a grammatical hostile shape is parsed in full, not refused by a budget: a signed 7.7 KB message whose URI path is slashes signs in', async () => {
		const { nonce, cookie } = await fetchNonce(portal.url);
		const message = buildMessage({
			domain: host,
			uri: `http://${host}/${'/'.repeat(7500)}`,
			nonce,
			address: member.address
		});
		const response = await postVerify(
			portal.url,
			{ message, signature: await member.signMessage({ message }) },
			cookie
		);
		expect(response.status).toBe(200);
	});

	it('no size bound is left: a signed 7 KB message with a 3,000-byte statement and 60 resources signs in', async () => {
		const { nonce, cookie } = await fetchNonce(portal.url);
		const message = withResources(
			buildMessage({
				domain: host,
				uri: `http://${host}`,
				nonce,
				address: member.address,
				statement: 'y'.repeat(3000)
			}),
			60
		);
		expect(Buffer.byteLength(message)).toBeGreaterThan(4500);
		const response = await postVerify(
			portal.url,
			{ message, signature: await member.signMessage({ message }) },
			cookie
		);
		expect(response.status).toBe(200);
	});
});
