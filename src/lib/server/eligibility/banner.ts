import { ruleContract, ruleLines, ruleNeed, type EligibilityRefusal } from '$lib/eligibility/rules';
import type { CurrentForm } from '../forms/versions';
import { previewEligibility, tokenDetails } from './check';
import type { RpcEndpoint } from '../platform/endpoints';
import { storedRules } from './rules-schema';

/** What /apply says before the form: whether the member qualifies and what they hold, or that it cannot be told now. */
export type EligibilityBanner =
	| ({ state: 'checked'; ok: boolean } & EligibilityRefusal)
	| { state: 'unavailable'; mode: 'all' | 'any'; needs: string[] };

/**
 * The /apply banner (docs/eligibility.md): looked up at most once a minute per address and form version;
 * null when the form has no requirements. Never throws: a chain that cannot answer says so. `polygon`:
 * POLYGON_RPC_URL (runtime().chain.polygon), passed down by the route.
 */
export async function eligibilityBanner(
	polygon: RpcEndpoint | null,
	form: CurrentForm,
	address: string
): Promise<EligibilityBanner | null> {
	const rules = storedRules(form.eligibility);
	if (rules === null) return null;
	if (rules === 'invalid') return { state: 'unavailable', mode: 'all', needs: [] };
	const answer = await previewEligibility(polygon, address, form.id, rules);
	if (!answer.ok) {
		const details = await tokenDetails(polygon, rules);
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
