import { FALLBACK_SOURCE, type PulseView } from '$lib/components/pulse/pulse';
import { runtime } from '../platform/runtime';
import { communityPulse, type CommunityPulse } from './community-pulse';

/**
 * How long the home page waits for a cold cache (GitHub's first answer) before it says the issues are not
 * available right now: the page is never held for the upstream's whole timeout (community-pulse.ts); the
 * fetch goes on, and the next page gets its answer from the cache.
 */
export const PULSE_PAGE_WAIT_MS = 1_500;

/** The home page's community pulse, drawn by the server (issue 61: the page has no scripts). Never throws. */
export async function pulseForPage(
	pulse: CommunityPulse = communityPulse(),
	waitMs = PULSE_PAGE_WAIT_MS
): Promise<Exclude<PulseView, { status: 'loading' }>> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
	const result = await Promise.race([pulse.get(), late]).finally(() => clearTimeout(timer));
	if (result?.ok) return { status: 'ok', ...result.value };
	if (result && result.code === 'not_configured') return { status: 'absent' };
	const repo = runtime().config.communityPulseRepo;
	const source = result?.source ?? (repo ? `https://github.com/${repo}/issues` : FALLBACK_SOURCE);
	return { status: 'error', items: [], source };
}
