import { formatUnits } from 'viem';
import { application_amount_base_units } from '$lib/paraglide/messages/application_amount_base_units.js';
import { application_amount_tokens } from '$lib/paraglide/messages/application_amount_tokens.js';
import { application_held_nfts } from '$lib/paraglide/messages/application_held_nfts.js';
import { application_rule_hold_erc1155 } from '$lib/paraglide/messages/application_rule_hold_erc1155.js';
import { application_rule_hold_erc20 } from '$lib/paraglide/messages/application_rule_hold_erc20.js';
import { application_rule_hold_erc721 } from '$lib/paraglide/messages/application_rule_hold_erc721.js';

/**
 * Who may apply, checked on chain 137 (docs/eligibility.md): the shapes that the form version stores
 * (`application_forms.eligibility`) and the evidence kept with each application
 * (`applications.eligibility`), and how both read to people. Pure: the browser and the server share it.
 */

/** Multicall3's address on every chain where it is deployed (Polygon since block 25770160). */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

export const RULE_KINDS = ['erc20', 'erc721', 'erc1155'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const KIND_LABELS: Record<RuleKind, string> = {
	erc20: 'Token balance (ERC-20)',
	erc721: 'NFTs held (ERC-721)',
	erc1155: 'Token id balance (ERC-1155)'
};

export const ELIGIBILITY_LIMITS = { maxRules: 10, label: 100 } as const;

export type Address = `0x${string}`;

export type EligibilityRule =
	| { kind: 'erc20'; token: Address; min: string; label?: string }
	| { kind: 'erc721'; contract: Address; min: number; label?: string }
	| { kind: 'erc1155'; contract: Address; id: string; min: number; label?: string };

export interface EligibilityRules {
	mode: 'all' | 'any';
	rules: EligibilityRule[];
}

/** One rule's answer: what the address held (base units or a count, as a decimal string) and whether it is enough. */
export interface RuleResult {
	rule: number;
	held: string;
	ok: boolean;
}

/** What the chain said, at one block, for every rule (the contract of `applications.eligibility`). */
export interface EligibilityEvidence {
	block: number;
	checkedAt: string;
	ok: boolean;
	results: RuleResult[];
}

/** What the chain says of an ERC-20 for display (null where the token does not say). */
export interface TokenDetails {
	symbol: string | null;
	decimals: number | null;
}

/** The contract a rule reads. */
export const ruleContract = (rule: EligibilityRule): Address => (rule.kind === 'erc20' ? rule.token : rule.contract);

/** The rule's minimum, as a bigint in the unit `held` is counted in. */
export const ruleMin = (rule: EligibilityRule): bigint => BigInt(rule.min);

/** `all`: every rule; `any`: at least one. */
export const qualifies = (mode: EligibilityRules['mode'], oks: readonly boolean[]): boolean =>
	mode === 'all' ? oks.every(Boolean) : oks.some(Boolean);

/** "0x1234…abcd". */
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/** A base-unit amount in tokens when the decimals are known ("100", "0.5"), else in base units. */
export function formatAmount(base: string | bigint, details: TokenDetails | undefined): string {
	const value = BigInt(base);
	if (details?.decimals == null) return application_amount_base_units({ amount: value.toString() });
	return formatUnits(value, details.decimals);
}

/** What a rule needs, in words: its label when it has one, else "at least 100 COMM (ERC-20 0x12…ab)". */
export function ruleNeed(rule: EligibilityRule, details?: TokenDetails): string {
	if (rule.label) return rule.label;
	return ruleNeedPlain(rule, details);
}

/** What a rule needs without its label (the label says it in the community's words). */
export function ruleNeedPlain(rule: EligibilityRule, details?: TokenDetails): string {
	if (rule.kind === 'erc20') {
		const amount = formatAmount(rule.min, details);
		const held = details?.symbol
			? `${amount} ${details.symbol}`
			: details?.decimals == null
				? amount
				: application_amount_tokens({ amount });
		return application_rule_hold_erc20({ amount: held, token: short(rule.token) });
	}
	if (rule.kind === 'erc721') return application_rule_hold_erc721({ count: rule.min, token: short(rule.contract) });
	return application_rule_hold_erc1155({ count: rule.min, id: rule.id, token: short(rule.contract) });
}

/** What the address holds, in the rule's unit ("12.5 COMM", "1 NFT"). */
export function ruleHeld(rule: EligibilityRule, held: string, details?: TokenDetails): string {
	if (rule.kind === 'erc20') {
		const symbol = details?.symbol ? ` ${details.symbol}` : '';
		return `${formatAmount(held, details)}${details?.decimals == null ? '' : symbol}`;
	}
	if (rule.kind === 'erc721') return application_held_nfts({ count: Number(held), held });
	return held;
}

/** One line per rule for a refusal: "Hold 100 COMM: you hold 12 COMM (not enough)". */
export function ruleLines(
	rules: EligibilityRules,
	evidence: Pick<EligibilityEvidence, 'results'>,
	details: Readonly<Record<string, TokenDetails>> = {}
): { need: string; held: string; ok: boolean }[] {
	return evidence.results.map((r) => {
		const rule = rules.rules[r.rule]!;
		const d = details[ruleContract(rule).toLowerCase()];
		return { need: ruleNeed(rule, d), held: ruleHeld(rule, r.held, d), ok: r.ok };
	});
}

/** A 403's account of a refusal (docs/eligibility.md): each rule's need and what the address holds, at a block. */
export interface EligibilityRefusal {
	mode: EligibilityRules['mode'];
	block: number;
	lines: { need: string; held: string; ok: boolean }[];
}
