/**
 * The admin's words for the three state fields, their states and their moves, in the page's locale
 * (messages `admin_*`, docs/translations.md). Pure and shared: the admin pages, the browser's checks
 * and the server's refusals read the same words. Kept apart from transitions.ts, which the database
 * schema imports outside Vite (drizzle, the test helpers), where Paraglide's runtime cannot load.
 */
import { m } from '$lib/paraglide/messages';
import { MOVES, isTerminal, type ApplicationStates, type Field } from './transitions';

/** A field's name: "Review", "Allowlist", "Token distribution". */
export function fieldName(field: Field): string {
	if (field === 'review') return m.admin_field_review();
	return field === 'allowlist' ? m.admin_field_allowlist() : m.admin_field_distribution();
}

const STATE_NAMES: Record<string, () => string> = {
	pending: m.admin_state_pending,
	needs_info: m.admin_state_needs_info,
	approved: m.admin_state_approved,
	rejected: m.admin_state_rejected,
	withdrawn: m.admin_state_withdrawn,
	added: m.admin_state_added,
	sent: m.admin_state_sent,
	failed: m.admin_state_failed
};

/** A state in lower case as a label shows it ("needs info"); anything else as it is. */
export const stateName = (state: string): string => (Object.hasOwn(STATE_NAMES, state) ? STATE_NAMES[state]!() : state);

/** The verb on the button that makes a move ("Approve", "Record token sent"). */
export function actionName(field: Field, to: string): string {
	if (field === 'review') {
		if (to === 'needs_info') return m.admin_action_ask();
		if (to === 'approved') return m.admin_action_approve();
		if (to === 'rejected') return m.admin_action_reject();
		return m.admin_action_move_to({ state: stateName(to) });
	}
	if (to === 'failed')
		return field === 'allowlist' ? m.admin_action_allowlist_failed() : m.admin_action_distribution_failed();
	return field === 'allowlist' ? m.admin_action_allowlist_added() : m.admin_action_distribution_sent();
}

/** What chain 137 said of a recorded tx hash (transitions.ts txCheckLabel), as the result line says it. */
export function txCheckText(verified: boolean | null, checksOn: boolean): string {
	if (verified) return m.admin_tx_verified();
	return checksOn ? m.admin_tx_unverified() : m.admin_tx_not_checked();
}

/** The built-in answers' names ($lib/applications/asks BUILT_IN_FIELDS) on the admin's pages. */
export function builtInName(key: string): string | null {
	if (key === 'displayName') return m.admin_answer_display_name();
	if (key === 'motivation') return m.admin_answer_motivation();
	if (key === 'contact') return m.admin_answer_contact();
	return null;
}

/**
 * Why an admin may not move `field` of `app` to `to` now, in the request's locale, or null when the
 * table permits it: transitions.ts `refusal()` in words (admin-words.test.ts holds them together).
 */
export function moveRefusal(app: ApplicationStates, field: Field, to: string): string | null {
	const from = app[field];
	const name = fieldName(field);
	if (from === to) return m.admin_refusal_already({ field: name, state: stateName(to) });
	if (isTerminal(field, from)) return m.admin_refusal_final({ field: name, state: stateName(from) });
	if (field !== 'review' && app.review !== 'approved') return m.admin_refusal_after_approval({ field: name });
	const found = MOVES.find((move) => move.field === field && move.from === from && move.to === to);
	if (!found) return m.admin_refusal_no_move({ field: name, from: stateName(from), to: stateName(to) });
	if (found.byApplicant)
		return to === 'withdrawn' ? m.application_withdraw_only_applicant() : m.admin_refusal_by_applicant();
	return null;
}

const SETTING_WORDS: Record<string, () => string> = {
	POLYGON_RPC_URL: m.admin_setting_polygon_rpc_url,
	TREASURY_ADDRESS: m.admin_setting_treasury_address,
	ALLOWLIST_CONTRACT: m.admin_setting_allowlist_contract,
	ALLOWLIST_FUNCTION: m.admin_setting_allowlist_function,
	ALLOWLIST_EVENT: m.admin_setting_allowlist_event,
	PUBLIC_TOKEN_ADDRESS: m.admin_setting_token_address,
	TOKEN_GRANT_AMOUNT: m.admin_setting_token_grant_amount
};

/**
 * A setting the portal's operator sets, as an admin reads it: what it is in words, its variable's name as
 * the detail ("a connection to Polygon (setting POLYGON_RPC_URL)"; issue 61). An unknown name stays as it is.
 */
export const settingName = (name: string): string =>
	Object.hasOwn(SETTING_WORDS, name) ? m.admin_setting_named({ words: SETTING_WORDS[name]!(), name }) : name;

/** Settings in words, listed as the locale lists ("A", "A and B", "A, B and C"). */
export function settingList(names: readonly string[]): string {
	const words = names.map(settingName);
	return words.length <= 1
		? (words[0] ?? '')
		: m.admin_name_list({ names: words.slice(0, -1).join(m.admin_list_separator()), last: words.at(-1)! });
}
