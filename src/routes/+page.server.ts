import { HOME_TEXTS, PROGRAMS_NOW_TEXTS, PULSE_TEXTS } from '$lib/i18n/texts';
import { textsOf } from '$lib/server/i18n/texts';
import { pulseForPage } from '$lib/server/pulse/home';
import { programsJson } from '$lib/server/programs/rounds';
import { runtime, serverLog, withDatabase } from '$lib/server/platform/runtime';
import { worthShowing, type ProgramsJson } from '$lib/components/programs/programs-now';
import type { PageServerLoad } from './$types';

/** The open programmes and those to open next, or null (nothing worth naming, or the database is away). */
async function programsNow(): Promise<ProgramsJson | null> {
	try {
		const programs = await withDatabase((db) => programsJson(db, runtime().config.communityTimeZone));
		return worthShowing(programs) ? programs : null;
	} catch (err) {
		// The home page stands without them, as it did when the browser's request failed.
		serverLog(
			'warn',
			`The home page's programmes could not be read: ${err instanceof Error ? err.message : String(err)}`
		);
		return null;
	}
}

// No hydration (issue 61: at most 40 kB of scripts on `/` in every locale): the server draws all of the
// page, its forms post without scripts (sign-out, the language offer's No, thanks), and a signed-in
// member's page loads only the account watcher (+page.svelte).
export const csr = false;

// The home page's words in the page's locale only (src/lib/i18n/texts.ts): its own, the open programmes'
// and the community pulse's. The server draws the programmes and the pulse (issue 61: no scripts on `/`).
export const load: PageServerLoad = async () => {
	const [pulse, programs] = await Promise.all([pulseForPage(), programsNow()]);
	return {
		pageTexts: textsOf(HOME_TEXTS),
		programsTexts: textsOf(PROGRAMS_NOW_TEXTS),
		pulseTexts: textsOf(PULSE_TEXTS),
		pulse,
		programs,
		now: Date.now()
	};
};
