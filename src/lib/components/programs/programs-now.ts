import type { ProgramTranslations } from '$lib/programs/programs';

/** The browser side of GET /api/programs for the home page (prerendered): fetch, check the shape, never cache. */

export interface RoundJson {
	id: number;
	name: string;
	opensAt: string;
	closesAt: string | null;
}
export interface ProgramJson {
	slug: string;
	name: string;
	description: string;
	translations: ProgramTranslations;
	open: boolean;
	round: RoundJson | null;
	nextRound: RoundJson | null;
}
export interface ProgramsJson {
	timeZone: string;
	programs: ProgramJson[];
}

const isRound = (r: unknown): r is RoundJson | null =>
	r === null ||
	(typeof r === 'object' &&
		typeof (r as RoundJson).name === 'string' &&
		typeof (r as RoundJson).opensAt === 'string' &&
		((r as RoundJson).closesAt === null || typeof (r as RoundJson).closesAt === 'string'));

const isProgram = (p: unknown): p is ProgramJson =>
	typeof p === 'object' &&
	p !== null &&
	typeof (p as ProgramJson).slug === 'string' &&
	typeof (p as ProgramJson).name === 'string' &&
	typeof (p as ProgramJson).description === 'string' &&
	typeof (p as ProgramJson).translations === 'object' &&
	(p as ProgramJson).translations !== null &&
	isRound((p as ProgramJson).round) &&
	isRound((p as ProgramJson).nextRound);

/** The programmes as the server has them now; null when the answer cannot be read (the home page then says nothing). */
export async function loadPrograms(fetchFn: typeof fetch): Promise<ProgramsJson | null> {
	try {
		const response = await fetchFn('/api/programs', { cache: 'no-store', headers: { accept: 'application/json' } });
		if (!response.ok) return null;
		const body = (await response.json()) as Partial<ProgramsJson>;
		if (typeof body.timeZone !== 'string' || !Array.isArray(body.programs) || !body.programs.every(isProgram))
			return null;
		return { timeZone: body.timeZone, programs: body.programs };
	} catch {
		return null;
	}
}

/**
 * Whether the home page names the programmes: not while the portal is as it was before programmes (one
 * programme, open, with no closing date and nothing announced next), whose page stays as it always was.
 */
export const worthShowing = ({ programs }: ProgramsJson) =>
	programs.length > 1 || programs.some((p) => !p.open || p.round?.closesAt || p.nextRound);
