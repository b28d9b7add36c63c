import { savedAccentCss } from '$lib/branding/accent';
import { community as built } from '$lib/branding/community';
import { baseLocale } from '$lib/i18n/locales';
import { communityIn } from './current';

/**
 * What a saved accent (/admin/settings) puts in every page's head, where src/app.html says
 * `%portal.accent%` (src/hooks.server.ts fills it in): its tokens as a style sheet (`html:root` outweighs
 * src/app.css's `:root`), written on the server so that no page carries the colour arithmetic or an
 * `{@html}` in its JavaScript. The build's own accent is in src/app.css: nothing is added. Only a
 * validated `#rrggbb` reaches the CSS (settings.ts).
 */
export async function accentStyleSheet(): Promise<string> {
	const { accent } = await communityIn(baseLocale);
	return accent === built.accent ? '' : `<style>${savedAccentCss(accent)}</style>`;
}
