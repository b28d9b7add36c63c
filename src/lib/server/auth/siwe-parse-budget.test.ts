import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import apg from 'apg-js/src/apg-lib/node-exports.js';
import { grammar as siweGrammar } from '@spruceid/siwe-parser/dist/siwe-grammar.js';
import { createSiweMessage } from 'viem/siwe';
import { parseSignInMessage } from './siwe';
import { PARSE_BUDGET, lastParseNodeHits, parseBudget } from './siwe-parse-budget';

// The proof that the reference parser's work on any body is bounded, in its own unit of work (apg
// node hits, a constant amount of work each), never in wall-clock time.
const BODY_LIMIT = 8192;
const ADDRESS = '0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B';
// The compiled grammar is a constructor typed as a function.
const grammar: unknown = new (siweGrammar as unknown as new () => object)();

/** Node hits of the reference grammar on `text` with no budget (what the parser would cost). */
function unboundedNodeHits(text: string): number {
	const Unbudgeted = (apg.parser as typeof apg.parser & { unbudgeted: typeof apg.parser }).unbudgeted;
	return new Unbudgeted().parse(grammar, 0, text, { errors: [] }).nodeHits;
}

const message = (parts: { domain?: string; statement?: string; uri?: string; extra?: string[] } = {}) =>
	[
		`${parts.domain ?? 'portal.example'} wants you to sign in with your Ethereum account:`,
		ADDRESS,
		'',
		parts.statement ?? 'Sign in.',
		'',
		`URI: ${parts.uri ?? 'https://portal.example'}`,
		'Version: 1',
		'Chain ID: 137',
		'Nonce: abcdefgh12345678',
		'Issued At: 2026-01-01T00:00:00Z',
		...(parts.extra ?? [])
	].join('\n');

/** Where a hostile run of text goes, each a field of the grammar. */
const PLACES: Record<string, (run: string) => string> = {
	'URI path': (run) => message({ uri: `https://portal.example/${run}` }),
	'URI authority': (run) => message({ uri: `https://${run}` }),
	domain: (run) => message({ domain: run }),
	statement: (run) => message({ statement: run }),
	'one resource': (run) => message({ extra: ['Resources:', `- https://${run}`] }),
	'many resources': (run) => message({ extra: ['Resources:', ...run.match(/.{1,40}/g)!.map((r) => `- a:${r}`)] }),
	'request id': (run) => message({ extra: [`Request ID: ${run}`] })
};

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

describe('the reference parser works within parseBudget(length) on any body', () => {
	it('property: every body of at most 8 KiB, of any shape, stops within the budget', () => {
		const units = fc.constantFrom('/', './', '.', '1.', ':', '1:', '[', '%41', '@', 'a', 'é', '\u0000', '-', '?#');
		fc.assert(
			fc.property(
				fc.constantFrom(...Object.keys(PLACES)),
				fc.array(units, { minLength: 1, maxLength: 4 }),
				(place, parts) => {
					const body = fill(PLACES[place]!, parts.join(''));
					expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BODY_LIMIT);
					parseSignInMessage(body);
					expect(lastParseNodeHits()).toBeLessThanOrEqual(parseBudget(body.length));
				}
			),
			{ numRuns: 60 }
		);
	});

	it('the budget is what refuses: grammatical 8 KiB bodies that would cost half again their budget are message_malformed', () => {
		for (const [place, unit] of [
			['URI path', '/'],
			['URI authority', '1.'],
			['domain', 'a.']
		] as const) {
			const body = fill(PLACES[place]!, unit);
			expect(unboundedNodeHits(body), place).toBeGreaterThan(1.5 * parseBudget(body.length));
			expect(parseSignInMessage(body), place).toBeNull();
			expect(lastParseNodeHits(), place).toBeLessThanOrEqual(parseBudget(body.length));
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
			expect(lastParseNodeHits()).toBeLessThanOrEqual(parseBudget(body.length));
		}
	);

	it('without the budget the work is linear too, at most 20 node hits a character on every shape (so 9 is a real cut)', () => {
		expect(PARSE_BUDGET.nodeHitsPerChar).toBeLessThan(20);
		for (const [place, make] of Object.entries(PLACES)) {
			for (const unit of ['/', '1.', 'a', '%41', ':']) {
				const body = fill(make, unit);
				expect(unboundedNodeHits(body), `${place} ${unit}`).toBeLessThanOrEqual(
					20 * body.length + PARSE_BUDGET.fixedNodeHits
				);
			}
		}
	});
});
