/**
 * The admin's words for the three state fields, their states and their moves, in the page's locale
 * (messages `admin_*`, docs/translations.md). Pure and shared: the admin pages, the browser's checks
 * and the server's refusals read the same words. Kept apart from transitions.ts, which the database
 * schema imports outside Vite (drizzle, the test helpers), where Paraglide's runtime cannot load.
 */
import { admin_action_allowlist_added } from '$lib/paraglide/messages/admin_action_allowlist_added.js';
import { admin_action_allowlist_failed } from '$lib/paraglide/messages/admin_action_allowlist_failed.js';
import { admin_action_approve } from '$lib/paraglide/messages/admin_action_approve.js';
import { admin_action_ask } from '$lib/paraglide/messages/admin_action_ask.js';
import { admin_action_distribution_failed } from '$lib/paraglide/messages/admin_action_distribution_failed.js';
import { admin_action_distribution_sent } from '$lib/paraglide/messages/admin_action_distribution_sent.js';
import { admin_action_move_to } from '$lib/paraglide/messages/admin_action_move_to.js';
import { admin_action_reject } from '$lib/paraglide/messages/admin_action_reject.js';
import { admin_answer_contact } from '$lib/paraglide/messages/admin_answer_contact.js';
import { admin_answer_display_name } from '$lib/paraglide/messages/admin_answer_display_name.js';
import { admin_answer_motivation } from '$lib/paraglide/messages/admin_answer_motivation.js';
import { admin_field_allowlist } from '$lib/paraglide/messages/admin_field_allowlist.js';
import { admin_field_distribution } from '$lib/paraglide/messages/admin_field_distribution.js';
import { admin_field_review } from '$lib/paraglide/messages/admin_field_review.js';
import { admin_list_separator } from '$lib/paraglide/messages/admin_list_separator.js';
import { admin_name_list } from '$lib/paraglide/messages/admin_name_list.js';
import { admin_refusal_after_approval } from '$lib/paraglide/messages/admin_refusal_after_approval.js';
import { admin_refusal_already } from '$lib/paraglide/messages/admin_refusal_already.js';
import { admin_refusal_by_applicant } from '$lib/paraglide/messages/admin_refusal_by_applicant.js';
import { admin_refusal_final } from '$lib/paraglide/messages/admin_refusal_final.js';
import { admin_refusal_no_move } from '$lib/paraglide/messages/admin_refusal_no_move.js';
import { admin_setting_allowlist_contract } from '$lib/paraglide/messages/admin_setting_allowlist_contract.js';
import { admin_setting_allowlist_event } from '$lib/paraglide/messages/admin_setting_allowlist_event.js';
import { admin_setting_allowlist_function } from '$lib/paraglide/messages/admin_setting_allowlist_function.js';
import { admin_setting_named } from '$lib/paraglide/messages/admin_setting_named.js';
import { admin_setting_polygon_rpc_url } from '$lib/paraglide/messages/admin_setting_polygon_rpc_url.js';
import { admin_setting_token_address } from '$lib/paraglide/messages/admin_setting_token_address.js';
import { admin_setting_token_grant_amount } from '$lib/paraglide/messages/admin_setting_token_grant_amount.js';
import { admin_setting_treasury_address } from '$lib/paraglide/messages/admin_setting_treasury_address.js';
import { admin_state_added } from '$lib/paraglide/messages/admin_state_added.js';
import { admin_state_approved } from '$lib/paraglide/messages/admin_state_approved.js';
import { admin_state_failed } from '$lib/paraglide/messages/admin_state_failed.js';
import { admin_state_needs_info } from '$lib/paraglide/messages/admin_state_needs_info.js';
import { admin_state_pending } from '$lib/paraglide/messages/admin_state_pending.js';
import { admin_state_rejected } from '$lib/paraglide/messages/admin_state_rejected.js';
import { admin_state_sent } from '$lib/paraglide/messages/admin_state_sent.js';
import { admin_state_withdrawn } from '$lib/paraglide/messages/admin_state_withdrawn.js';
import { admin_tx_not_checked } from '$lib/paraglide/messages/admin_tx_not_checked.js';
import { admin_tx_unverified } from '$lib/paraglide/messages/admin_tx_unverified.js';
import { admin_tx_verified } from '$lib/paraglide/messages/admin_tx_verified.js';
import { application_withdraw_only_applicant } from '$lib/paraglide/messages/application_withdraw_only_applicant.js';
import { MOVES, isTerminal, type ApplicationStates, type Field } from './transitions';

/** A field's name: "Review", "Allowlist", "Token distribution". */
export function fieldName(field: Field): string {
	if (field === 'review') return admin_field_review();
	return field === 'allowlist' ? admin_field_allowlist() : admin_field_distribution();
}

const STATE_NAMES: Record<string, () => string> = {
	pending: admin_state_pending,
	needs_info: admin_state_needs_info,
	approved: admin_state_approved,
	rejected: admin_state_rejected,
	withdrawn: admin_state_withdrawn,
	added: admin_state_added,
	sent: admin_state_sent,
	failed: admin_state_failed
};

/** A state in lower case as a label shows it ("needs info"); anything else as it is. */
export const stateName = (state: string): string => (Object.hasOwn(STATE_NAMES, state) ? STATE_NAMES[state]!() : state);

/** The verb on the button that makes a move ("Approve", "Record token sent"). */
export function actionName(field: Field, to: string): string {
	if (field === 'review') {
		if (to === 'needs_info') return admin_action_ask();
		if (to === 'approved') return admin_action_approve();
		if (to === 'rejected') return admin_action_reject();
		return admin_action_move_to({ state: stateName(to) });
	}
	if (to === 'failed')
		return field === 'allowlist' ? admin_action_allowlist_failed() : admin_action_distribution_failed();
	return field === 'allowlist' ? admin_action_allowlist_added() : admin_action_distribution_sent();
}

/** What chain 137 said of a recorded tx hash (transitions.ts txCheckLabel), as the result line says it. */
export function txCheckText(verified: boolean | null, checksOn: boolean): string {
	if (verified) return admin_tx_verified();
	return checksOn ? admin_tx_unverified() : admin_tx_not_checked();
}

/** The built-in answers' names ($lib/applications/asks BUILT_IN_FIELDS) on the admin's pages. */
export function builtInName(key: string): string | null {
	if (key === 'displayName') return admin_answer_display_name();
	if (key === 'motivation') return admin_answer_motivation();
	if (key === 'contact') return admin_answer_contact();
	return null;
}

/**
 * Why an admin may not move `field` of `app` to `to` now, in the request's locale, or null when the
 * table permits it: transitions.ts `refusal()` in words (admin-words.test.ts holds them together).
 */
export function moveRefusal(app: ApplicationStates, field: Field, to: string): string | null {
	const from = app[field];
	const name = fieldName(field);
	if (from === to) return admin_refusal_already({ field: name, state: stateName(to) });
	if (isTerminal(field, from)) return admin_refusal_final({ field: name, state: stateName(from) });
	if (field !== 'review' && app.review !== 'approved') return admin_refusal_after_approval({ field: name });
	const found = MOVES.find((move) => move.field === field && move.from === from && move.to === to);
	if (!found) return admin_refusal_no_move({ field: name, from: stateName(from), to: stateName(to) });
	if (found.byApplicant)
		return to === 'withdrawn' ? application_withdraw_only_applicant() : admin_refusal_by_applicant();
	return null;
}

const SETTING_WORDS: Record<string, () => string> = {
	POLYGON_RPC_URL: admin_setting_polygon_rpc_url,
	TREASURY_ADDRESS: admin_setting_treasury_address,
	ALLOWLIST_CONTRACT: admin_setting_allowlist_contract,
	ALLOWLIST_FUNCTION: admin_setting_allowlist_function,
	ALLOWLIST_EVENT: admin_setting_allowlist_event,
	PUBLIC_TOKEN_ADDRESS: admin_setting_token_address,
	TOKEN_GRANT_AMOUNT: admin_setting_token_grant_amount
};

/**
 * A setting the portal's operator sets, as an admin reads it: what it is in words, its variable's name as
 * the detail ("a connection to Polygon (setting POLYGON_RPC_URL)"; issue 61). An unknown name stays as it is.
 */
export const settingName = (name: string): string =>
	Object.hasOwn(SETTING_WORDS, name) ? admin_setting_named({ words: SETTING_WORDS[name]!(), name }) : name;

/** Settings in words, listed as the locale lists ("A", "A and B", "A, B and C"). */
export function settingList(names: readonly string[]): string {
	const words = names.map(settingName);
	return words.length <= 1
		? (words[0] ?? '')
		: admin_name_list({ names: words.slice(0, -1).join(admin_list_separator()), last: words.at(-1)! });
}
