import { ruleLines, type EligibilityEvidence } from '$lib/eligibility/rules';
import { m } from '$lib/paraglide/messages';
import type { FailureOf, Outcome } from '../platform/outcome';
import { checkEligibility, type Unchecked } from './check';
import type { RpcEndpoint } from '../platform/endpoints';
import { storedRules } from './rules-schema';
import { logger } from '../platform/observability';

const SUBMIT_UNAVAILABLE: Record<Unchecked | 'invalid_rules', () => string> = {
	not_configured: m.application_unavailable_not_configured,
	no_answer: m.application_unavailable_no_answer,
	wrong_chain: m.application_unavailable_wrong_chain,
	contract_failed: m.application_unavailable_contract_failed,
	invalid_rules: m.application_unavailable_invalid_rules
};

/** 503 eligibility_unavailable: nothing was written; the applicant may try again in a moment. */
export const eligibilityUnavailable = (why: Unchecked | 'invalid_rules'): FailureOf<503> => ({
	ok: false,
	status: 503,
	code: 'eligibility_unavailable',
	message: m.application_unavailable({ why: SUBMIT_UNAVAILABLE[why]() })
});

/**
 * The eligibility check of a submission or resubmission (docs/eligibility.md): no rules, null (anyone
 * may apply); the evidence to keep when the address qualifies; 403 with each rule's need and holding
 * when it does not; 503 when the chain cannot answer within 5 seconds. Call it before any write.
 */
export async function eligibilityAtSubmission(
	polygon: RpcEndpoint | null,
	formRules: unknown,
	address: string
): Promise<Outcome<EligibilityEvidence | null>> {
	const rules = storedRules(formRules);
	if (rules === null) return { ok: true, value: null };
	if (rules === 'invalid') {
		logger.error(
			'application_forms.eligibility of the current form is not well-formed: no one can apply until it is saved again.'
		);
		return eligibilityUnavailable('invalid_rules');
	}
	const answer = await checkEligibility(polygon, address, rules);
	if (!answer.ok) return eligibilityUnavailable(answer.why);
	const { evidence, details } = answer;
	if (evidence.ok) return { ok: true, value: evidence };
	const lines = ruleLines(rules, evidence, details);
	const said = lines
		.map((l) =>
			l.ok
				? m.apply_eligibility_line({ need: l.need, held: l.held })
				: m.application_not_eligible_not_enough({ need: l.need, held: l.held })
		)
		.join('; ');
	const block = evidence.block;
	return {
		ok: false,
		status: 403,
		code: 'not_eligible',
		message:
			rules.mode === 'all'
				? m.application_not_eligible_all({ block, lines: said })
				: m.application_not_eligible_any({ block, lines: said }),
		eligibility: { mode: rules.mode, block: evidence.block, lines }
	};
}
