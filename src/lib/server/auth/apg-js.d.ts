// apg-js ships no types; only the parser constructor's node-hit limit is used (siwe-parse-budget.ts).
declare module 'apg-js/src/apg-lib/node-exports.js' {
	interface ApgParseResult {
		success: boolean;
		nodeHits: number;
	}
	interface ApgParser {
		setMaxNodeHits(hits: number): void;
		parse(...args: unknown[]): ApgParseResult;
	}
	const apg: { parser: new () => ApgParser };
	export default apg;
}
