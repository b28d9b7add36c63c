import { parseUnits } from 'viem';
import type { DraftEligibility } from '$lib/eligibility/draft';
import type { EligibilityRules } from '$lib/eligibility/rules';
import type { Database } from '../db/client';
import type { SignedInMember } from '../auth/guards';
import { writeFormVersion } from '../forms/save-version';
import { invalid, type Outcome } from '../platform/outcome';
import { trialCheck } from './check';
import type { RpcEndpoint } from '../platform/endpoints';
import { checkRules } from './rules-schema';
import { m } from '$lib/paraglide/messages';
import { eligibilityUnavailable } from './submission';

const TOKEN_AMOUNT = /^(0|[1-9][0-9]{0,59})(\.[0-9]{1,77})?$/;

/**
 * saveEligibility: the requirements of who may apply, saved as a new form version (questions and rubric
 * carried forward). No rules: anyone may apply, nothing is read on chain. With rules: POLYGON_RPC_URL
 * must be set and serve chain 137, and every rule's contract must answer its balance call there
 * (ERC-20 minimums typed in tokens are turned into base units with the token's own decimals).
 */
export async function saveEligibility(
	db: Database,
	polygon: RpcEndpoint | null,
	admin: SignedInMember,
	draft: DraftEligibility,
	programId?: number
): Promise<Outcome<{ id: number; rules: EligibilityRules | null }>> {
	if (draft.rules.length === 0) {
		const { id } = await writeFormVersion(db, admin, { eligibility: null }, programId);
		return { ok: true, value: { id, rules: null } };
	}
	// First the shape, with every ERC-20 minimum as a placeholder when typed in tokens (it needs the decimals).
	const errors: Record<string, string> = {};
	const shaped = {
		mode: draft.mode,
		rules: draft.rules.map((r, i) => {
			const min = r.min.trim();
			const base = { kind: r.kind, label: r.label };
			if (r.kind === 'erc20') {
				if (r.unit === 'token' && !TOKEN_AMOUNT.test(min))
					errors[`rules.${i}.min`] = m.eligibility_error_token_amount();
				return { ...base, token: r.contract.trim(), min: r.unit === 'token' ? '1' : min };
			}
			const count = /^[0-9]{1,10}$/.test(min) ? Number(min) : NaN;
			if (r.kind === 'erc721') return { ...base, contract: r.contract.trim(), min: count };
			return { ...base, contract: r.contract.trim(), id: r.id.trim(), min: count };
		})
	};
	const checked = checkRules(shaped);
	if (!checked.ok) Object.assign(errors, checked.errors, errors);
	if (!checked.ok || Object.keys(errors).length) return invalid(errors);
	if (!polygon)
		return invalid({
			rules: m.editor_eligibility_no_rpc({ variable: 'POLYGON_RPC_URL' })
		});
	const trial = await trialCheck(polygon, checked.value);
	if (!trial.ok) {
		if (trial.why === 'wrong_chain')
			return invalid({
				rules: m.eligibility_error_wrong_chain({ variable: 'POLYGON_RPC_URL' })
			});
		if (trial.why === 'contract_failed' && trial.rule !== undefined)
			return invalid({
				[`rules.${trial.rule}.contract`]: m.eligibility_error_contract_silent()
			});
		return eligibilityUnavailable(trial.why);
	}
	const rules: EligibilityRules = {
		mode: checked.value.mode,
		rules: checked.value.rules.map((rule, i) => {
			const typed = draft.rules[i]!;
			if (rule.kind !== 'erc20' || typed.unit !== 'token') return rule;
			const decimals = trial.details[rule.token]?.decimals;
			if (decimals == null) {
				errors[`rules.${i}.min`] = m.eligibility_error_no_decimals();
				return rule;
			}
			const [whole = '', fraction = ''] = typed.min.trim().split('.');
			if (fraction.replace(/0+$/, '').length > decimals) {
				errors[`rules.${i}.min`] = m.eligibility_error_decimals({ decimals });
				return rule;
			}
			return { ...rule, min: parseUnits(`${whole}.${fraction || '0'}`, decimals).toString() };
		})
	};
	if (Object.keys(errors).length) return invalid(errors);
	const final = checkRules(rules); // the converted minimums: at least 1 base unit, within a uint256
	if (!final.ok) return invalid(final.errors);
	const { id } = await writeFormVersion(db, admin, { eligibility: final.value }, programId);
	return { ok: true, value: { id, rules: final.value } };
}
