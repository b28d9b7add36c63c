// apg-js ships no types; what siwe-parse-budget.ts uses of it: the parser constructor, its rule
// callbacks, its node-hit limit and the result states.
declare module 'apg-js/src/apg-lib/node-exports.js' {
	interface ApgSysData {
		state: number;
		phraseLength: number;
	}
	type ApgRuleCallback = (sysData: ApgSysData, chars: number[], phraseIndex: number, data: unknown) => void;
	interface ApgParseResult {
		success: boolean;
		state: number;
		matched: number;
		nodeHits: number;
	}
	interface ApgParser {
		callbacks: Record<string, ApgRuleCallback | undefined>;
		setMaxNodeHits(hits: number): void;
		parse(grammar: unknown, startRule: number | string, input: string | number[], data?: unknown): ApgParseResult;
	}
	const apg: {
		parser: new () => ApgParser;
		ids: Record<'MATCH' | 'EMPTY' | 'NOMATCH' | 'ACTIVE', number>;
	};
	export default apg;
}
