/**
 * Words the server sends with a page's data, in the page's locale only: the browser's code for the
 * components every page shows (the header, the language switcher), for the home page's and for /setup's
 * own words then carries none of their messages, in five locales (docs/translations.md, "Words sent with the page").
 * Messages with inputs only the browser knows stay Paraglide's functions. The server reads them with
 * `textsOf` (src/lib/server/i18n/texts.ts).
 */

/**
 * The root layout's own words: the header and the language switcher; and the root error page's, which
 * SvelteKit's client loads on every page (src/routes/+error.svelte).
 */
export const LAYOUT_TEXTS = [
	'common_apply',
	'common_check_in',
	'common_review',
	'common_sign_in',
	'common_signed_in_as',
	'error_go_home',
	'error_not_found',
	'error_not_found_text',
	'error_try_later',
	'error_went_wrong',
	'layout_dismiss_notice',
	'layout_nav_admin',
	'layout_nav_inbox',
	'layout_nav_label',
	'layout_sign_out',
	'layout_skip_to_content',
	'locale_switcher_label'
] as const;

/** The home page's own words, with the open programmes' and the community pulse's (`src/routes/+page.server.ts`). */
export const HOME_TEXTS = [
	'common_sign_in_to_apply',
	'home_how_title',
	'home_links_label',
	'home_see_application',
	'home_step_apply',
	'home_step_review',
	'home_step_sign_in',
	'home_step_token',
	'home_step_token_title'
] as const;
export const PROGRAMS_NOW_TEXTS = [
	'apply_program_no_close',
	'home_programs_heading',
	'home_programs_open',
	'home_programs_upcoming'
] as const;
export const PULSE_TEXTS = [
	'pulse_all_on_github',
	'pulse_by',
	'pulse_caption',
	'pulse_empty',
	'pulse_failed',
	'pulse_labels',
	'pulse_loading',
	'pulse_see_on_github',
	'pulse_title',
	'pulse_updated'
] as const;

/** The words named by `keys`, each a string in the page's locale. */
export type Texts<K extends string> = Readonly<Record<K, string>>;
export type LayoutTexts = Texts<(typeof LAYOUT_TEXTS)[number]>;
export type ProgramsNowTexts = Texts<(typeof PROGRAMS_NOW_TEXTS)[number]>;
export type PulseTexts = Texts<(typeof PULSE_TEXTS)[number]>;

/**
 * /setup's no-wallet help, a computer's (NoWallet.svelte) and a phone's (NoWalletPhone.svelte): sent with
 * /setup's data, so that the help's code, loaded only for a browser with no wallet, carries no messages.
 */
export const NO_WALLET_TEXTS = [
	'common_opens_in_new_tab',
	'signin_installed_reload',
	'signin_no_wallet',
	'signin_no_wallet_phone',
	'signin_or_connect_app',
	'signin_or_scan',
	'signin_wallet_app',
	'signin_wallet_apps',
	'signin_wallet_extension',
	'signin_wallet_extensions'
] as const;

/** The no-wallet help's words, with "Get <wallet>" and "Open in <wallet app>" written out for each wallet it names. */
export type NoWalletTexts = Texts<(typeof NO_WALLET_TEXTS)[number]> & {
	readonly getWallet: Readonly<Record<string, string>>;
	readonly openIn: Readonly<Record<string, string>>;
};
