import type { Branding, CommunityLink } from './branding';

/** The community's look as `/admin/settings` saved it (null: the environment's value stays). */
export interface SavedCommunity {
	name: string | null;
	description: string | null;
	links: CommunityLink[] | null;
	accent: string | null;
	/** Locale → its name and description; a blank one falls back to the base words. */
	translations: Record<string, { name?: string; description?: string }>;
	/** The saved logo's sha256 (hex), served at `/logo/<sha256>`; null: the environment's logo. */
	logoSha256: string | null;
}

/** Where a saved logo is served: by its content hash, so a new logo is a new URL and each may be cached for good. */
export const savedLogoPath = (sha256: string) => `/logo/${sha256}`;

/**
 * The community's branding in one locale: the saved values over the environment's (`base`, the build's),
 * the saved translation of the name and description over the saved base words.
 */
export function brandingIn(base: Branding, saved: SavedCommunity | null, locale: string): Branding {
	if (!saved) return base;
	const words = Object.hasOwn(saved.translations, locale) ? saved.translations[locale] : undefined;
	return {
		name: words?.name || saved.name || base.name,
		description: words?.description || saved.description || base.description,
		links: saved.links ?? base.links,
		accent: saved.accent ?? base.accent,
		logoUrl: saved.logoSha256 ? savedLogoPath(saved.logoSha256) : base.logoUrl
	};
}
