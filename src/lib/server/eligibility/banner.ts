import { ruleContract, ruleLines, ruleNeed, type EligibilityRefusal } from '$lib/eligibility/rules';
import type { CurrentForm } from '../forms/versions';
import { previewEligibility, tokenDetails } from './check';
import { storedRules } from './rules-schema';

/** What /apply says before the form: whether the member qualifies and what they hold, or that it cannot be told now. */
export type EligibilityBanner =
	| ({ state: 'checked'; ok: boolean } & EligibilityRefusal)
	| { state: 'unavailable'; mode: 'all' | 'any'; needs: string[] };

/**
 * The /apply banner (docs/eligibility.md): looked up at most once a minute per address and form version;
 * null when the form has no requirements. Never throws: a chain that cannot answer says so.
 */
export async function eligibilityBanner(form: CurrentForm, address: string): Promise<EligibilityBanner | null> {
	const rules = storedRules(form.eligibility);
	if (rules === null) return null;
	if (rules === 'invalid') return { state: 'unavailable', mode: 'all', needs: [] };
	const answer = await previewEligibility(address, form.id, rules);
	if (!answer.ok) {
		const details = await tokenDetails(rules);
		return {
			state: 'unavailable',
			mode: rules.mode,
			needs: rules.rules.map((r) => ruleNeed(r, details[ruleContract(r).toLowerCase()]))
		};
	}
	const { evidence, details } = answer;
	return {
		state: 'checked',
		ok: evidence.ok,
		mode: rules.mode,
		block: evidence.block,
		lines: ruleLines(rules, evidence, details)
	};
}
