import { getLocale } from '$lib/paraglide/runtime';
import { LAYOUT_TEXTS } from '$lib/i18n/texts';
import { communityIn } from '$lib/server/branding/current';
import { textsOf } from '$lib/server/i18n/texts';
import { localeOffer } from '$lib/server/i18n/offer';
import { sessionCheckBody } from '$lib/server/auth/session-check';
import { SIGNED_OUT_COOKIE, signedOutCookieOptions } from '$lib/server/auth/session';
import { unreadCount } from '$lib/server/notifications/inbox';
import { withDatabase } from '$lib/server/platform/runtime';
import { m } from '$lib/paraglide/messages';
import { unreadText } from '$lib/server/i18n/unread';
import type { LayoutServerLoad } from './$types';

/** The home page's route: it does not hydrate (src/routes/+page.server.ts, `csr = false`). */
const HOME_ROUTE = '/';

// The community's name, description, links, accent and logo in the page's locale, as /admin/settings saved
// them (issue 59): every page reads them here, so a save shows on the next request. A change of locale
// reloads the page (the switcher's links), which runs this again.
// (A saved accent's style sheet is written into the head by the server: src/lib/server/branding/accent-style.ts, filled in by src/hooks.server.ts.)
// The header's words come with them, in the page's locale only (src/lib/i18n/texts.ts), and the offer of
// the browser's preferred language when it is another (src/lib/server/i18n/offer.ts).
// Who is signed in (GET /api/auth/me's answer) comes too: the header is drawn signed in from the first paint.
// The unread count comes only for the page drawn without scripts, the home page (issue 61), which needs
// nothing else. A page that hydrates asks for it anyway as it mounts (the layout's afterNavigate:
// session.refresh(), GET /api/notifications/unread), so counting here too read the same count twice per
// page view: one statement in three of /apply's, a tenth of its CPU (bench/README.md "Figures behind the code").
export const load: LayoutServerLoad = async ({ cookies, locals, request, route, untrack, url }) => {
	const member = locals.member;
	// Untracked: the layout's data is not read again on every navigation for it (a hydrating page's count is the browser's).
	const drawnWithoutScripts = untrack(() => route.id === HOME_ROUTE);
	const unread =
		member && drawnWithoutScripts
			? await withDatabase((db) => unreadCount(db, member.address)).catch(() => null)
			: null;
	// Why the browser signed the member out (the home page's account watcher), said once.
	const signedOut = cookies.get(SIGNED_OUT_COOKIE);
	if (signedOut !== undefined) cookies.delete(SIGNED_OUT_COOKIE, signedOutCookieOptions(url));
	return {
		community: await communityIn(getLocale()),
		texts: textsOf(LAYOUT_TEXTS),
		offer: localeOffer(request, cookies, getLocale()),
		me: { ...sessionCheckBody(member), unread, unreadText: unread ? unreadText(unread) : null },
		notice: signedOut === 'account' && !member ? m.signin_signed_out_account() : null
	};
};
