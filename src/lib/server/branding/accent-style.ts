import type { Handle } from '@sveltejs/kit';
import { savedAccentCss } from '$lib/branding/accent';
import { community as built } from '$lib/branding/community';
import { baseLocale } from '$lib/i18n/locales';
import { communityIn } from './current';

/** Where src/app.html holds the saved accent's style sheet, in the page's head. */
const MARK = '%portal.accent%';

/**
 * A saved accent (/admin/settings) over the build's: its tokens as a style sheet in every page's head
 * (`html:root` outweighs src/app.css's `:root`), written on the server so that no page carries the colour
 * arithmetic or an `{@html}` in its JavaScript. The build's own accent is in src/app.css: nothing is added.
 * Only a validated `#rrggbb` reaches the CSS (settings.ts).
 */
export const accentStyle: Handle = ({ event, resolve }) =>
	resolve(event, {
		transformPageChunk: async ({ html }) => {
			if (!html.includes(MARK)) return html;
			const { accent } = await communityIn(baseLocale);
			return html.replace(MARK, accent === built.accent ? '' : `<style>${savedAccentCss(accent)}</style>`);
		}
	});
