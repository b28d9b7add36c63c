/**
 * A round's name as a reader reads it (issue 61): the round the migration made of what came before
 * programmes (drizzle/0023_programs_and_rounds.sql) is named "Open" in the database, a name the contract
 * fixes (docs/data.md "rounds"); every page shows it in the page's locale. A round the community named is
 * shown as it named it. Apart from programs.ts, which the schema imports outside Vite, where Paraglide's
 * runtime cannot load.
 */
import { round_open_name } from '$lib/paraglide/messages/round_open_name.js';
import type { Locale } from '$lib/paraglide/runtime';

/** The name drizzle/0023 gave the open-ended round that holds every application made before programmes. */
export const MIGRATION_ROUND_NAME = 'Open';

/** `locale`: the reader's, where it is not the page's (a notification). */
export const roundInLocale = (name: string, locale?: Locale): string =>
	name === MIGRATION_ROUND_NAME ? round_open_name({}, locale ? { locale } : {}) : name;
