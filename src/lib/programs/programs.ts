/**
 * Programmes and rounds (docs/data.md "programs", "rounds"): the shapes and limits both sides share,
 * owned here once and imported by the schema's checks, the server's validation and the pages.
 */

/** A programme's slug: its path under /apply/ and its name in /api/programs. */
export const PROGRAM_SLUG = /^[a-z][a-z0-9-]{0,39}$/;
/** The same pattern as SQL text, for the table's CHECK. */
export const PROGRAM_SLUG_SQL = '^[a-z][a-z0-9-]{0,39}$';

export const PROGRAM_LENGTHS = {
	name: { min: 1, max: 80 },
	description: { min: 0, max: 2000 },
	roundName: { min: 1, max: 80 }
} as const;

/** `immediate`: each decision reaches its applicant at once; `together`: all at the round's release. */
export const RELEASE_MODES = ['immediate', 'together'] as const;
export type ReleaseMode = (typeof RELEASE_MODES)[number];

/** What the migration made of the portal that came before programmes: one programme, one open-ended round. */
export const MEMBERSHIP_SLUG = 'membership';

/** A programme's name and description in another locale (each optional). */
export type ProgramTranslations = Partial<Record<string, { name?: string; description?: string }>>;

/** A programme as the admins' filters offer it: archived ones too (their applications stay reviewable). */
export interface ProgramChoice {
	id: number;
	slug: string;
	name: string;
	archived: boolean;
	/** Its rounds, in the order they open. */
	rounds: { id: number; name: string }[];
}

/** A programme's name and description as `locale` reads them: the community's translation where it gave one, else the original. */
export function programInLocale<P extends { name: string; description?: string; translations: ProgramTranslations }>(
	program: P,
	locale: string
): { name: string; description: string } {
	const own: unknown = Object.hasOwn(program.translations, locale) ? program.translations[locale] : undefined;
	// The column is jsonb: read only what is text.
	const text = (key: 'name' | 'description') => {
		const value = own && typeof own === 'object' ? (own as Record<string, unknown>)[key] : undefined;
		return typeof value === 'string' ? value.trim() : '';
	};
	return { name: text('name') || program.name, description: text('description') || (program.description ?? '') };
}
