import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import apg from 'apg-js/src/apg-lib/node-exports.js';
import { grammar as siweGrammar } from '@spruceid/siwe-parser/dist/siwe-grammar.js';
import { createSiweMessage } from 'viem/siwe';
import { parseSignInMessage, type SignInMessage } from './siwe';
import { PARSE_NODE_HIT_LIMIT, lastParseNodeHits } from './siwe-parse-budget';
import { SIWE_TEXT_PIECES } from './siwe-text-pieces';

// The proof that the reference parser's work on any body is bounded, in its own unit of work (apg
// node hits), never in wall-clock time; and that handing the variable-length rules to the scanners
// changes no verdict of the grammar.
const BODY_LIMIT = 8192;
const ADDRESS = '0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B';
// The compiled grammar is a constructor typed as a function.
const grammar: unknown = new (siweGrammar as unknown as new () => object)();
const Reference = (apg.parser as typeof apg.parser & { unbudgeted: typeof apg.parser }).unbudgeted;

/** Node hits of the reference grammar on `text` as it is, without the scanners. */
function unboundedNodeHits(text: string): number {
	return new Reference().parse(grammar, 0, text, { errors: [] }).nodeHits;
}

/** parseSignInMessage with apg as it is (every rule parsed by apg, no limit): the judge. */
function referenceParse(text: string): SignInMessage | null {
	const installed = apg.parser;
	apg.parser = Reference;
	try {
		return parseSignInMessage(text);
	} finally {
		apg.parser = installed;
	}
}

type Parts = {
	scheme?: string;
	domain?: string;
	statement?: string;
	uri?: string;
	chainId?: string;
	nonce?: string;
	issuedAt?: string;
	extra?: string[];
};
const message = (parts: Parts = {}) =>
	[
		`${parts.scheme ?? ''}${parts.domain ?? 'portal.example'} wants you to sign in with your Ethereum account:`,
		ADDRESS,
		'',
		parts.statement ?? 'Sign in.',
		'',
		`URI: ${parts.uri ?? 'https://portal.example'}`,
		'Version: 1',
		`Chain ID: ${parts.chainId ?? '137'}`,
		`Nonce: ${parts.nonce ?? 'abcdefgh12345678'}`,
		`Issued At: ${parts.issuedAt ?? '2026-01-01T00:00:00Z'}`,
		...(parts.extra ?? [])
	].join('\n');

/** Where a hostile run of text goes: every field of the grammar whose length is not fixed. */
const PLACES: Record<string, (run: string) => string> = {
	scheme: (run) => message({ scheme: `a${run}://` }),
	domain: (run) => message({ domain: run }),
	statement: (run) => message({ statement: run }),
	'URI path': (run) => message({ uri: `https://portal.example/${run}` }),
	'URI authority': (run) => message({ uri: `https://${run}` }),
	'URI IPv6 host': (run) => message({ uri: `https://[${run}]` }),
	'chain id': (run) => message({ chainId: run }),
	nonce: (run) => message({ nonce: run }),
	'fraction of a second': (run) => message({ issuedAt: `2026-01-01T00:00:00.${run}Z` }),
	'request id': (run) => message({ extra: [`Request ID: ${run}`] }),
	'one resource': (run) => message({ extra: ['Resources:', `- https://${run}`] }),
	'many resources': (run) => message({ extra: ['Resources:', ...(run.match(/.{1,4}/g) ?? []).map((r) => `- a:${r}`)] })
};
const UNITS = ['/', './', '.', '1.', '1:', ':', '::', '[', '%41', '%', '@', 'a', '9', '~', 'é', '\u0000', '-', '?#'];

/** The largest body of at most 8 KiB that `make` builds from repetitions of `unit`. */
function fill(make: (run: string) => string, unit: string): string {
	let [low, high] = [1, BODY_LIMIT];
	while (low < high) {
		const mid = (low + high + 1) >> 1;
		if (Buffer.byteLength(make(unit.repeat(mid))) <= BODY_LIMIT) low = mid;
		else high = mid - 1;
	}
	return make(unit.repeat(low));
}

describe('the reference parser does a bounded amount of work on any body', () => {
	it('property: every body of at most 8 KiB, any shape in any field, stops within PARSE_NODE_HIT_LIMIT', () => {
		fc.assert(
			fc.property(
				fc.constantFrom(...Object.keys(PLACES)),
				fc.array(fc.constantFrom(...UNITS), { minLength: 1, maxLength: 4 }),
				(place, parts) => {
					const body = fill(PLACES[place]!, parts.join(''));
					expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT);
					parseSignInMessage(body);
					expect(lastParseNodeHits()).toBeLessThanOrEqual(PARSE_NODE_HIT_LIMIT);
				}
			),
			{ numRuns: 80 }
		);
	});

	it('without the scanners the same bodies cost the reference parser over 30 times the limit: the scanners are what bounds it', () => {
		for (const [place, unit] of [
			['URI path', '/'],
			['domain', '1.'],
			['request id', '~'],
			['many resources', 'a']
		] as const) {
			const body = fill(PLACES[place]!, unit);
			expect(unboundedNodeHits(body), place).toBeGreaterThan(30 * PARSE_NODE_HIT_LIMIT);
			expect(parseSignInMessage(body), place).not.toBeNull();
			expect(lastParseNodeHits(), place).toBeLessThanOrEqual(PARSE_NODE_HIT_LIMIT);
		}
	});

	it.each([
		['URLs', (i: number) => `https://portal.example/docs/terms-of-service/v2#clause-${i}`],
		['short URLs', (i: number) => `https://r.example/${i}`],
		['IPFS links', (i: number) => `ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/${i}`]
	])(
		"an honest client's 8 KiB message fits: viem with every optional field and %s to the limit",
		(_label, resource) => {
			const build = (n: number) =>
				createSiweMessage({
					domain: 'portal.example',
					address: ADDRESS,
					statement: 'Sign in to the member portal; by signing you accept the terms of service (v2).',
					uri: 'https://portal.example/setup',
					version: '1',
					chainId: 137,
					nonce: 'abcdefgh12345678',
					issuedAt: new Date('2026-01-01T00:00:00Z'),
					expirationTime: new Date('2026-01-01T00:10:00Z'),
					notBefore: new Date('2026-01-01T00:00:00Z'),
					requestId: 'req-0123456789',
					resources: Array.from({ length: n }, (_, i) => resource(i))
				});
			let n = 1;
			// The JSON body also carries a 132-byte signature and its keys.
			while (Buffer.byteLength(build(n + 1)) <= BODY_LIMIT - 200) n++;
			const body = build(n);
			expect(n).toBeGreaterThan(90);
			expect(parseSignInMessage(body)?.resources).toHaveLength(n);
			expect(lastParseNodeHits()).toBeLessThanOrEqual(PARSE_NODE_HIT_LIMIT);
		}
	);
});

describe('with the scanners the reference parser reaches the same verdict and the same fields', () => {
	// Text of every kind for any field (siwe-text-pieces.ts).
	const run = fc.array(fc.constantFrom(...SIWE_TEXT_PIECES), { maxLength: 16 }).map((p) => p.join(''));
	const honest = fc.constantFrom<Parts>(
		{},
		{ scheme: 'https://', uri: 'https://portal.example/setup?x=1#a' },
		{ domain: 'user@[::1]:5173', uri: 'http://[::1]:5173' },
		{ extra: ['Expiration Time: 2026-01-01T00:10:00.5Z', 'Request ID: r-1', 'Resources:', '- urn:recap:e30', '- a:b'] }
	);

	it('property: any field replaced by any text, the verdict and every field equal the reference parser without scanners', () => {
		fc.assert(
			fc.property(honest, fc.constantFrom(...Object.keys(PLACES)), run, (base, place, text) => {
				for (const body of [
					PLACES[place]!(text),
					message({ ...base, [place === 'domain' ? 'domain' : 'statement']: text })
				]) {
					expect(parseSignInMessage(body), JSON.stringify(body)).toEqual(referenceParse(body));
				}
			}),
			{ numRuns: 600 }
		);
	});

	it('property: a valid message with one line changed anywhere (a character added, dropped or replaced), the same verdict', () => {
		const base = message({
			scheme: 'https://',
			statement: 'Sign in: terms at https://portal.example/terms (v2).',
			uri: 'https://portal.example/setup',
			extra: [
				'Expiration Time: 2026-01-01T00:10:00Z',
				'Not Before: 2026-01-01T00:00:00.250Z',
				'Request ID: abc-123',
				'Resources:',
				'- https://portal.example/terms',
				'- urn:recap:eyJhdHQiOnt9fQ'
			]
		});
		expect(parseSignInMessage(base)).not.toBeNull();
		fc.assert(
			fc.property(fc.nat(base.length - 1), fc.constantFrom('', ...SIWE_TEXT_PIECES), fc.nat(1), (at, piece, drop) => {
				const body = base.slice(0, at) + piece + base.slice(at + drop);
				expect(parseSignInMessage(body), JSON.stringify(body)).toEqual(referenceParse(body));
			}),
			{ numRuns: 1_500 }
		);
	});
});
