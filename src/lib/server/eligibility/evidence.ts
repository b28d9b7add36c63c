import { eq } from 'drizzle-orm';
import type { EligibilityEvidence, EligibilityRules, TokenDetails } from '$lib/eligibility/rules';
import type { Database } from '../db/client';
import { applicationForms, applications } from '../db/schema';
import { notFound, type Outcome } from '../platform/outcome';
import { checkEligibility, tokenDetails } from './check';
import type { RpcEndpoint } from '../platform/endpoints';
import { storedRules } from './rules-schema';
import { eligibilityUnavailable } from './submission';
import { m } from '$lib/paraglide/messages';

/** What reviewers see of an application's eligibility: its form version's rules and the evidence at submission. */
export interface EvidenceView {
	rules: EligibilityRules;
	details: Record<string, TokenDetails>;
	/** Null for an application sent before the rules (or seeded without evidence). */
	submitted: EligibilityEvidence | null;
}

/** The rules of a form version (null: none, or not readable). */
async function rulesOf(db: Database, formId: number | null): Promise<EligibilityRules | null> {
	if (formId === null) return null;
	const [row] = await db
		.select({ eligibility: applicationForms.eligibility })
		.from(applicationForms)
		.where(eq(applicationForms.id, formId));
	const rules = storedRules(row?.eligibility ?? null);
	return rules === 'invalid' ? null : rules;
}

/** The evidence view of an application, or null when its form version had no rules. */
export async function evidenceOf(
	db: Database,
	polygon: RpcEndpoint | null,
	application: { formId: number | null; eligibility: EligibilityEvidence | null }
): Promise<EvidenceView | null> {
	const rules = await rulesOf(db, application.formId);
	if (!rules) return null;
	return { rules, details: await tokenDetails(polygon, rules), submitted: application.eligibility };
}

/**
 * checkEligibilityAgain: what the applicant holds now, against the rules their application was checked
 * with, for the reviewer to see beside the evidence at submission. Reads the chain, writes nothing.
 */
export async function checkEligibilityAgain(
	db: Database,
	polygon: RpcEndpoint | null,
	applicationId: string
): Promise<Outcome<{ now: EligibilityEvidence; view: EvidenceView }>> {
	const [app] = await db
		.select({
			address: applications.applicantAddress,
			formId: applications.formId,
			eligibility: applications.eligibility
		})
		.from(applications)
		.where(eq(applications.id, applicationId));
	if (!app) return notFound(m.admin_no_application_id());
	const rules = await rulesOf(db, app.formId);
	if (!rules) return notFound(m.eligibility_error_no_requirements());
	const answer = await checkEligibility(polygon, app.address, rules);
	if (!answer.ok) return eligibilityUnavailable(answer.why);
	return {
		ok: true,
		value: { now: answer.evidence, view: { rules, details: answer.details, submitted: app.eligibility } }
	};
}
