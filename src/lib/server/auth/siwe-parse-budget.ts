import apg from 'apg-js/src/apg-lib/node-exports.js';

/**
 * The most work the reference parser may do on a message, in its own unit: apg's node hits (one
 * call of an opcode, a constant amount of work each), linear in the message's length. Standard
 * clients' messages cost 2 to 9 hits a character (a statement 2, a ReCap 4, URLs 6, a crowd of
 * short URLs 8.5) plus a fixed part for the required lines; hostile URI shapes (runs of `/`, `.`,
 * digits) cost up to 20, and are refused when they pass the budget. docs/sign-in.md "Bounding the
 * parser" has the figures.
 */
export const PARSE_BUDGET = { fixedNodeHits: 2_000, nodeHitsPerChar: 9 } as const;

/** The node-hit budget of a message of `chars` UTF-16 code units (what apg counts as characters). */
export function parseBudget(chars: number): number {
	return PARSE_BUDGET.fixedNodeHits + PARSE_BUDGET.nodeHitsPerChar * chars;
}

let lastNodeHits = 0;

/** Node hits of the latest parse by the reference parser (tests prove the bound with it). */
export function lastParseNodeHits(): number {
	return lastNodeHits;
}

type ApgParserConstructor = typeof apg.parser & { [marker]?: true; unbudgeted?: typeof apg.parser };
const marker = Symbol.for('member-portal.siwe-parse-budget');

/**
 * `@spruceid/siwe-parser` (inside `siwe`) builds a fresh apg parser for every message and offers no
 * option for a limit; apg has one (`setMaxNodeHits`: it throws on the hit past it). So every parser
 * built from this apg module gets the budget of its input. apg-js is a dependency of our own so
 * that this module and siwe share one copy of it in every build.
 */
function installBudget(): void {
	const original: ApgParserConstructor = apg.parser;
	if (original[marker]) return;
	const budgeted = function BudgetedParser() {
		const parser = new original();
		const parse = parser.parse.bind(parser);
		parser.parse = (...args: unknown[]) => {
			const input = args[2];
			const budget = parseBudget(typeof input === 'string' ? input.length : Infinity);
			parser.setMaxNodeHits(budget);
			try {
				const result = parse(...args);
				lastNodeHits = result.nodeHits;
				return result;
			} catch (error) {
				// apg throws on the hit past the limit, before doing its work.
				lastNodeHits = budget;
				throw error;
			}
		};
		return parser;
	} as unknown as ApgParserConstructor;
	budgeted[marker] = true;
	// Tests measure what a parse would cost without the budget.
	budgeted.unbudgeted = original;
	apg.parser = budgeted;
}

installBudget();
