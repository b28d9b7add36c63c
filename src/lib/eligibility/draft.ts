import { formatUnits } from 'viem';
import { ELIGIBILITY_LIMITS, RULE_KINDS, type EligibilityRules, type RuleKind, type TokenDetails } from './rules';
import { form_invalid } from '$lib/paraglide/messages/form_invalid.js';
import { editor_send_field_once } from '$lib/paraglide/messages/editor_send_field_once.js';
import { eligibility_error_rule_count } from '$lib/paraglide/messages/eligibility_error_rule_count.js';
import { eligibility_error_mode } from '$lib/paraglide/messages/eligibility_error_mode.js';
import { eligibility_error_kind } from '$lib/paraglide/messages/eligibility_error_kind.js';
import { eligibility_error_unit } from '$lib/paraglide/messages/eligibility_error_unit.js';

/**
 * The eligibility editor's draft on /admin/form (docs/eligibility.md): what the posted fields
 * `mode`, `ruleCount` and `rules.<i>.<field>` say, every value as typed, and the add/remove steps.
 * Pure, so that the browser's editor runs the same code as the server's no-JavaScript steps.
 */
export interface DraftRule {
	kind: RuleKind;
	/** The token (ERC-20) or collection contract. */
	contract: string;
	/** ERC-1155 token id. */
	id: string;
	min: string;
	/** ERC-20 only: the minimum in whole tokens (the contract's decimals apply) or in base units. */
	unit: 'token' | 'base';
	label: string;
}

export interface DraftEligibility {
	mode: 'all' | 'any';
	rules: DraftRule[];
}

export const RULE_FIELDS = ['kind', 'contract', 'id', 'min', 'unit', 'label'] as const;

export const emptyRule = (): DraftRule => ({ kind: 'erc20', contract: '', id: '', min: '', unit: 'token', label: '' });

type Read =
	| { ok: true; value: DraftEligibility }
	| { ok: false; status: 400; code: 'invalid_request'; message: string; errors: Record<string, string> };

const refused = (field: string, message: string): Read => ({
	ok: false,
	status: 400,
	code: 'invalid_request',
	message: form_invalid(),
	errors: { [field]: message }
});

/** The posted draft; a field sent twice, a file, or a count out of range is a 400 naming it. */
export function readEligibilityDraft(form: Pick<FormData, 'getAll'>): Read {
	const one = (name: string): string | null | undefined => {
		const values = form.getAll(name);
		if (values.length === 0) return undefined;
		if (values.length > 1 || typeof values[0] !== 'string') return null;
		return values[0];
	};
	const countText = one('ruleCount') ?? '0';
	if (countText === null || !/^\d{1,2}$/.test(countText) || Number(countText) > ELIGIBILITY_LIMITS.maxRules)
		return refused('ruleCount', eligibility_error_rule_count({ max: ELIGIBILITY_LIMITS.maxRules }));
	const mode = one('mode') ?? 'all';
	if (mode !== 'all' && mode !== 'any') return refused('mode', eligibility_error_mode());
	const rules: DraftRule[] = [];
	for (let i = 0; i < Number(countText); i++) {
		const rule = emptyRule();
		for (const field of RULE_FIELDS) {
			const value = one(`rules.${i}.${field}`);
			if (value === null) return refused(`rules.${i}.${field}`, editor_send_field_once());
			if (value === undefined) continue;
			if (field === 'kind') {
				if (!(RULE_KINDS as readonly string[]).includes(value))
					return refused(`rules.${i}.kind`, eligibility_error_kind());
				rule.kind = value as RuleKind;
			} else if (field === 'unit') {
				if (value !== 'token' && value !== 'base') return refused(`rules.${i}.unit`, eligibility_error_unit());
				rule.unit = value;
			} else rule[field] = value.length > 200 ? value.slice(0, 200) : value;
		}
		rules.push(rule);
	}
	return { ok: true, value: { mode, rules } };
}

/** An edit step: `add` a rule, or `remove:<i>`. Anything else leaves the draft as it is. */
export function applyEligibilityStep(draft: DraftEligibility, op: string): DraftEligibility {
	if (op === 'add')
		return draft.rules.length >= ELIGIBILITY_LIMITS.maxRules
			? draft
			: { ...draft, rules: [...draft.rules, emptyRule()] };
	const remove = /^remove:(\d{1,2})$/.exec(op);
	if (remove) return { ...draft, rules: draft.rules.filter((_, i) => i !== Number(remove[1])) };
	return draft;
}

export const isEligibilityStep = (op: string, count: number) =>
	op === 'add' || (/^remove:(\d{1,2})$/.test(op) && Number(op.slice(7)) < count);

/** The stored rules as the editor shows them: ERC-20 minimums in tokens where the decimals are known. */
export function draftOfRules(
	rules: EligibilityRules | null,
	details: Readonly<Record<string, TokenDetails>>
): DraftEligibility {
	if (!rules) return { mode: 'all', rules: [] };
	return {
		mode: rules.mode,
		rules: rules.rules.map((r) => {
			if (r.kind === 'erc20') {
				const decimals = details[r.token.toLowerCase()]?.decimals;
				return {
					...emptyRule(),
					kind: 'erc20',
					contract: r.token,
					min: decimals == null ? r.min : formatUnits(BigInt(r.min), decimals),
					unit: decimals == null ? 'base' : 'token',
					label: r.label ?? ''
				};
			}
			return {
				...emptyRule(),
				kind: r.kind,
				contract: r.contract,
				id: r.kind === 'erc1155' ? r.id : '',
				min: String(r.min),
				label: r.label ?? ''
			};
		})
	};
}
