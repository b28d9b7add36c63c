import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import apg from 'apg-js/src/apg-lib/node-exports.js';
import { grammar as SiweGrammar } from '@spruceid/siwe-parser/dist/siwe-grammar.js';
import { cb } from '@spruceid/siwe-parser/dist/callbacks.js';
import * as scan from './siwe-scan';
import { SIWE_TEXT_PIECES } from './siwe-text-pieces';
// Installs the scanners in every parser built from here on; the oracle below uses apg as it is.
import './siwe-parse-budget';

// Each scanner against the reference grammar's own rule, run by apg as siwe-parser runs it (with its
// semantic callbacks for IPv4 octets and IPv6 groups): the same length matched, or both no match.
const grammar: unknown = new (SiweGrammar as unknown as new () => object)();
const Reference = (apg.parser as typeof apg.parser & { unbudgeted: typeof apg.parser }).unbudgeted;
const SEMANTIC = {
	'IP-literal': cb.ipLiteral,
	IPv4address: cb.ipv4,
	nodcolon: cb.nodcolon,
	dcolon: cb.dcolon,
	h16: cb.h16,
	h16c: cb.h16,
	h16n: cb.h16,
	h16cn: cb.h16,
	'dec-octet': cb.decOctet,
	'dec-digit': cb.decDigit
};

const chars = (text: string) => Array.from(text, (c) => c.codePointAt(0)!);

/** What the rule matches at the start of `text` by apg (the rest of `text` is what follows it). */
function reference(rule: string, text: string): number {
	const parser = new Reference();
	Object.assign(parser.callbacks, SEMANTIC);
	// As code points: apg's own conversion of a string with a surrogate pair throws (a message with
	// one is refused whole, before any rule runs).
	const result = parser.parse(grammar, rule, chars(text), { errors: [] });
	return result.state === apg.ids.NOMATCH ? scan.NOMATCH : result.matched;
}

const RULES: [rule: string, scanner: (s: number[], at: number) => number][] = [
	['URI', scan.uri],
	['URI-r', scan.uri],
	['domain', scan.authority],
	['oscheme', scan.oscheme],
	['IPv6address', scan.ipv6],
	['IPv4address', scan.ipv4],
	['statement', scan.statement],
	['nonce', scan.nonce],
	['request-id', scan.requestId],
	['chain-id', scan.chainId],
	['time-secfrac', scan.timeSecfrac],
	['resources', (s, at) => scan.resources(s, at).length]
];

const text = fc.array(fc.constantFrom(...SIWE_TEXT_PIECES), { maxLength: 24 }).map((parts) => parts.join(''));
const h16 = fc.constantFrom('0', '1', 'ab', 'ffff', 'FfFf', '12345', '');
const ipv6Like = fc
	.tuple(
		fc.array(h16, { maxLength: 9 }),
		fc.nat(9),
		fc.boolean(),
		fc.constantFrom('', '1.2.3.4', '255.0.0.256', '1.2.3')
	)
	.map(([groups, at, dcolon, v4]) => {
		const parts = groups.map((g) => g);
		if (dcolon) parts.splice(Math.min(at, parts.length), 0, '');
		const joined = parts.join(':') + (v4 ? (parts.length ? ':' : '') + v4 : '');
		return joined;
	});
const uriLike = fc
	.tuple(
		fc.constantFrom('https://', 'a://', 'http://u:p@', 'x:', 'urn:recap:', 'ipfs://', 'h://['),
		fc.oneof(
			ipv6Like.map((v) => `${v}]`),
			text
		),
		text
	)
	.map(([head, host, tail]) => head + host + tail);

describe('each scanner matches what the reference grammar matches', () => {
	it.each(RULES)('%s, on any text', (rule, scanner) => {
		fc.assert(
			fc.property(fc.oneof(text, uriLike), (input) => {
				expect(scanner(chars(input), 0), JSON.stringify(input)).toBe(reference(rule, input));
			}),
			{ numRuns: 1_500 }
		);
	});

	it('IPv6 addresses inside brackets, every count of groups with and without "::" and an IPv4 tail', () => {
		fc.assert(
			fc.property(ipv6Like, text, (address, after) => {
				for (const [rule, scanner] of [
					['IPv6address', scan.ipv6],
					['URI', scan.uri]
				] as const) {
					const input = rule === 'URI' ? `https://[${address}]${after}` : address + after;
					expect(scanner(chars(input), 0), `${rule} ${JSON.stringify(input)}`).toBe(reference(rule, input));
				}
			}),
			{ numRuns: 3_000 }
		);
	});

	it.each([
		['URI', 'https://portal.example/setup?x=1#top', 36],
		['URI', 'https://[2001:db8::1]:8443/', 27],
		['URI', 'https://[::ffff:192.0.2.1]/', 27],
		['URI', 'https://[v7.a:b]/', 17],
		['URI', 'https://1.2.3.256/', 18],
		['URI', 'https://[1:2:3:4:5:6:7]/', 8],
		['URI', 'mailto:member@portal.example', 28],
		['URI-r', 'urn:recap:eyJhdHQiOnt9fQ', 24],
		['domain', 'user:pass@portal.example:443', 28],
		['domain', '[::1]:5173', 10],
		['domain', '01.002.3.4', 10],
		['oscheme', 'https://portal.example', 8],
		['oscheme', 'portal.example', 0],
		['statement', 'I accept the ServiceOrg Terms of Service: https://service.org/tos', 65],
		['statement', '"quoted"', scan.NOMATCH],
		['nonce', 'abc123', scan.NOMATCH],
		['time-secfrac', '.123Z', 4]
	])('%s matches %s as the reference does', (rule, input, length) => {
		const scanner = RULES.find(([name]) => name === rule)![1];
		expect(scanner(chars(input), 0)).toBe(length);
		expect(reference(rule, input)).toBe(length);
	});
});

describe('each scanner reads every character a bounded number of times', () => {
	/** How many characters the scanner reads from `input`. */
	function reads(scanner: (s: number[], at: number) => number, input: string): number {
		let count = 0;
		const target = chars(input);
		const counted = new Proxy(target, {
			get(array, key, receiver) {
				if (typeof key === 'string' && /^\d+$/.test(key)) count++;
				return Reflect.get(array, key, receiver) as unknown;
			}
		});
		scanner(counted, 0);
		return count;
	}

	it('at most 8 reads a character on any 8 KiB text of any shape', () => {
		fc.assert(
			fc.property(
				fc.constantFrom(...RULES),
				fc.array(fc.constantFrom(...SIWE_TEXT_PIECES), { minLength: 1, maxLength: 6 }),
				([rule, scanner], unit) => {
					const body = unit
						.join('')
						.repeat(Math.ceil(8192 / unit.join('').length))
						.slice(0, 8192);
					const prefixed = rule.startsWith('URI') ? `https://${body}` : body;
					expect(reads(scanner, prefixed), rule).toBeLessThanOrEqual(8 * prefixed.length + 16);
				}
			),
			{ numRuns: 300 }
		);
	});
});
