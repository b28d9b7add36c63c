import apg from 'apg-js/src/apg-lib/node-exports.js';
import { grammar as SiweGrammar } from '@spruceid/siwe-parser/dist/siwe-grammar.js';
import * as scan from './siwe-scan';

/**
 * What the reference parser may cost on any message (docs/sign-in.md "Bounding the parser",
 * docs/decisions/0030-siwe-parser-scanners.md).
 *
 * `@spruceid/siwe-parser` (inside `siwe`) runs apg-js over the EIP-4361 grammar. apg allocates on
 * every rule call and tries up to a dozen alternatives per character, so a hostile 8 KiB URI cost
 * milliseconds (bench/README.md "Figures behind the code"). Here every variable-length rule of that grammar (the domain, the statement, the URI,
 * the nonce, the chain id, the request id, fractions of seconds and the resources) is answered by a
 * linear scanner (`siwe-scan.ts`, checked against apg's own rules), through apg's own hook: a rule
 * callback that sets the result before the rule runs stands for the rule. What apg still walks (the
 * line order, the titles, the address, the dates) has a fixed length, so its work is bounded by a
 * constant, whatever the message: PARSE_NODE_HIT_LIMIT, apg's own `setMaxNodeHits`, enforces it.
 */
export const PARSE_NODE_HIT_LIMIT = 2_000;

let lastNodeHits = 0;

/** Node hits of the latest parse by the reference parser (tests prove the bound with it). */
export function lastParseNodeHits(): number {
	return lastNodeHits;
}

type Parser = InstanceType<typeof apg.parser>;
type Callback = Parser['callbacks'][string];
type SysData = Parameters<NonNullable<Callback>>[0];
type ApgParserConstructor = typeof apg.parser & { [marker]?: true; unbudgeted?: typeof apg.parser };
const marker = Symbol.for('member-portal.siwe-parse-budget');
const { ids } = apg;

/** The grammar's rules that the scanners answer (lowercase, as apg compares rule names). */
const SCANNED: Record<string, (s: number[], at: number) => number> = {
	oscheme: scan.oscheme,
	domain: scan.authority,
	statement: scan.statement,
	uri: scan.uri,
	'uri-r': scan.uri,
	nonce: scan.nonce,
	'chain-id': scan.chainId,
	'request-id': scan.requestId,
	'time-secfrac': scan.timeSecfrac
};

// Fail at start-up, not in silence, if a release of the grammar renames a rule the scanners stand for.
const ruleNames = new Set(
	(new (SiweGrammar as unknown as new () => { rules: { lower: string }[] })().rules ?? []).map((r) => r.lower)
);
for (const name of [...Object.keys(SCANNED), 'resources', 'resource', 'sign-in-with-ethereum']) {
	if (!ruleNames.has(name)) throw new Error(`siwe-parse-budget: the SIWE grammar has no rule '${name}'`);
}

const isSiweGrammar = (grammar: unknown): boolean =>
	(grammar as { rules?: { lower?: string }[] } | null)?.rules?.[0]?.lower === 'sign-in-with-ethereum';

/** The callback registered for `rule` (apg compares names case-insensitively), and its key. */
function registered(parser: Parser, rule: string): [string, Callback | undefined] {
	const key = Object.keys(parser.callbacks).find((k) => k.toLowerCase() === rule) ?? rule;
	return [key, parser.callbacks[key]];
}

const settle = (sysData: SysData, length: number): void => {
	sysData.state = length < 0 ? ids.NOMATCH : length === 0 ? ids.EMPTY : ids.MATCH;
	sysData.phraseLength = Math.max(length, 0);
};

/**
 * Lets the scanners answer the grammar's variable-length rules. Each replacement computes the
 * rule's result, then calls the callback that siwe-parser registered for the rule (if any) with it,
 * as apg would have after parsing the rule, so siwe-parser records the same fields.
 */
function installScanners(parser: Parser): void {
	for (const [rule, scanner] of Object.entries(SCANNED)) {
		const [key, original] = registered(parser, rule);
		parser.callbacks[key] = (sysData, chars, phraseIndex, data) => {
			settle(sysData, scanner(chars, phraseIndex));
			original?.(sysData, chars, phraseIndex, data);
		};
	}
	// resources = *( LF resource ), resource = "- " URI-r: one pass over all of them, reporting each
	// resource to siwe-parser's callbacks for URI-r and resource as apg would.
	const [, onUri] = registered(parser, 'uri-r');
	const [, onResource] = registered(parser, 'resource');
	const [key] = registered(parser, 'resources');
	parser.callbacks[key] = (sysData, chars, phraseIndex, data) => {
		const found = scan.resources(chars, phraseIndex);
		for (const [at, length] of found.uris) {
			onUri?.({ state: ids.MATCH, phraseLength: length }, chars, at, data);
			onResource?.({ state: ids.MATCH, phraseLength: length + 2 }, chars, at - 2, data);
		}
		settle(sysData, found.length);
	};
}

/**
 * The input as apg's array of code points, made in one pass when the text has no UTF-16 surrogate
 * (apg's own conversion goes through two buffers); otherwise apg converts it (and refuses a lone
 * surrogate) as before.
 */
function codePoints(input: string | number[]): string | number[] {
	if (typeof input !== 'string' || /[\uD800-\uDFFF]/.test(input)) return input;
	const chars = new Array<number>(input.length);
	for (let i = 0; i < input.length; i++) chars[i] = input.charCodeAt(i);
	return chars;
}

/**
 * `@spruceid/siwe-parser` builds a fresh apg parser for every message and registers its callbacks
 * before it parses; so every parser built from this apg module gets, when it parses the SIWE
 * grammar, the scanners and the node-hit limit. apg-js is a dependency of our own so that this
 * module and siwe share one copy of it in every build.
 */
function installBudget(): void {
	const original: ApgParserConstructor = apg.parser;
	if (original[marker]) return;
	const budgeted = function BudgetedParser() {
		const parser = new original();
		const parse = parser.parse.bind(parser);
		parser.parse = (grammar, startRule, input, data) => {
			if (!isSiweGrammar(grammar)) return parse(grammar, startRule, input, data);
			installScanners(parser);
			parser.setMaxNodeHits(PARSE_NODE_HIT_LIMIT);
			// apg throws on the hit past the limit (a callback of siwe-parser may throw too).
			lastNodeHits = PARSE_NODE_HIT_LIMIT;
			const result = parse(grammar, startRule, codePoints(input), data);
			lastNodeHits = result.nodeHits;
			return result;
		};
		return parser;
	} as unknown as ApgParserConstructor;
	budgeted[marker] = true;
	// Tests compare with the reference parser as it is.
	budgeted.unbudgeted = original;
	apg.parser = budgeted;
}

installBudget();
