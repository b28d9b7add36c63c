import { modeWords, ruleLines, type EligibilityEvidence } from '$lib/eligibility/rules';
import type { FailureOf, Outcome } from '../platform/outcome';
import { checkEligibility, type Unchecked } from './check';
import { storedRules } from './rules';

const SUBMIT_UNAVAILABLE: Record<Unchecked | 'invalid_rules', string> = {
	not_configured:
		'This form has requirements that are checked on chain, and the portal is not connected to a chain (POLYGON_RPC_URL).',
	no_answer: 'The chain did not answer in time, so your holdings could not be checked.',
	wrong_chain:
		'The portal’s chain endpoint (POLYGON_RPC_URL) does not serve Polygon, so your holdings could not be checked.',
	contract_failed: 'A token contract of the requirements did not answer, so your holdings could not be checked.',
	invalid_rules: 'The form’s requirements could not be read.'
};

/** 503 eligibility_unavailable: nothing was written; the applicant may try again in a moment. */
export const eligibilityUnavailable = (why: Unchecked | 'invalid_rules'): FailureOf<503> => ({
	ok: false,
	status: 503,
	code: 'eligibility_unavailable',
	message: `${SUBMIT_UNAVAILABLE[why]} Nothing was sent; try again in a moment.`
});

/**
 * The eligibility check of a submission or resubmission (docs/eligibility.md): no rules, null (anyone
 * may apply); the evidence to keep when the address qualifies; 403 with each rule's need and holding
 * when it does not; 503 when the chain cannot answer within 5 seconds. Call it before any write.
 */
export async function eligibilityAtSubmission(
	formRules: unknown,
	address: string
): Promise<Outcome<EligibilityEvidence | null>> {
	const rules = storedRules(formRules);
	if (rules === null) return { ok: true, value: null };
	if (rules === 'invalid') {
		console.error(
			'application_forms.eligibility of the current form is not well-formed: no one can apply until it is saved again.'
		);
		return eligibilityUnavailable('invalid_rules');
	}
	const answer = await checkEligibility(address, rules);
	if (!answer.ok) return eligibilityUnavailable(answer.why);
	const { evidence, details } = answer;
	if (evidence.ok) return { ok: true, value: evidence };
	const lines = ruleLines(rules, evidence, details);
	return {
		ok: false,
		status: 403,
		code: 'not_eligible',
		message: `This community asks applicants to meet ${modeWords(rules.mode)} requirements, checked at Polygon block ${evidence.block}: ${lines
			.map((l) => `${l.need}: you hold ${l.held}${l.ok ? '' : ' (not enough)'}`)
			.join('; ')}. Nothing was sent.`,
		eligibility: { mode: rules.mode, block: evidence.block, lines }
	};
}
