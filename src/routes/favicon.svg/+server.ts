import { monogramSvg } from '$lib/branding/accent';
import { baseLocale } from '$lib/i18n/locales';
import { communityIn } from '$lib/server/branding/current';

// The default logo, the name's initial on the accent colour: the saved look's (/admin/settings) when there
// is one. Asked again each time (a save changes it); without a database, the build's.
export const GET = async () => {
	const branding = await communityIn(baseLocale);
	return new Response(monogramSvg(branding.name, branding.accent), {
		headers: { 'content-type': 'image/svg+xml', 'cache-control': 'no-cache' }
	});
};
