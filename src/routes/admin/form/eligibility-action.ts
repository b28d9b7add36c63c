import { redirect, type RequestEvent } from '@sveltejs/kit';
import { readForm, refuse } from '$lib/server/platform/forms';
import { fieldError } from '$lib/server/platform/outcome';
import { requireWholeAdmin } from '$lib/server/auth/guards';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import { applyEligibilityStep, draftOfRules, isEligibilityStep, readEligibilityDraft } from '$lib/eligibility/draft';
import { tokenDetails } from '$lib/server/eligibility/check';
import { storedRules } from '$lib/server/eligibility/rules-schema';
import { saveEligibility } from '$lib/server/eligibility/save-rules';
import { localHref } from '$lib/i18n/locales';
import type { Database } from '$lib/server/db/client';
import { editor_choose_a_button } from '$lib/paraglide/messages/editor_choose_a_button.js';

/** The eligibility editor's part of /admin/form's data: the current rules as a draft, and whether they can be checked. */
export async function eligibilityEditor(stored: unknown) {
	const rules = storedRules(stored);
	const valid = rules === 'invalid' ? null : rules;
	const { polygon } = runtime().chain;
	return {
		draft: draftOfRules(valid, await tokenDetails(polygon, valid)),
		stored: rules === 'invalid' ? ('invalid' as const) : rules ? ('rules' as const) : ('none' as const),
		rpcSet: polygon !== null
	};
}

/**
 * `?/eligibility`: with `op` an edit step without JavaScript (add, remove:<i>), the draft comes back and
 * nothing is written; without it, saveEligibility: guard → validate → read the chain → one insert.
 */
export async function eligibility(
	{ locals, request, url, setHeaders }: RequestEvent,
	programOf: (db: Database, url: URL) => Promise<{ id: number; slug: string } | null>
) {
	const admin = requireWholeAdmin({ locals, url });
	const program = await withDatabase((db) => programOf(db, url));
	const form = await readForm(request);
	const read = readEligibilityDraft(form);
	if (!read.ok) return refuse(setHeaders, read, { eligibilityDraft: null });
	const op = form.getAll('op');
	if (
		op.length > 1 ||
		(op.length === 1 && (typeof op[0] !== 'string' || !isEligibilityStep(op[0], read.value.rules.length)))
	)
		return refuse(setHeaders, fieldError('op', editor_choose_a_button()), {
			eligibilityDraft: read.value
		});
	if (op.length === 1) return { eligibilityDraft: applyEligibilityStep(read.value, op[0] as string) };
	const outcome = await withDatabase((db) =>
		saveEligibility(db, runtime().chain.polygon, admin, read.value, program?.id)
	);
	if (!outcome.ok) return refuse(setHeaders, outcome, { eligibilityDraft: read.value });
	redirect(
		303,
		localHref(`/admin/form?${program ? `program=${program.slug}&` : ''}part=eligibility&saved=eligibility`)
	);
}
