import { isPulseFeed, type Card } from '$lib/pulse/community-pulse';

/** The browser side of GET /api/community-pulse: fetch, check the shape, never reuse an old answer. */

export type PulseView =
	| { status: 'loading' }
	| { status: 'ok'; items: Card[]; source: string; fetchedAt: string }
	| { status: 'error'; items: []; source: string }
	/** No repository configured (204 No Content): the home page leaves the feed out. */
	| { status: 'absent' };

export const PULSE_ENDPOINT = '/api/community-pulse';
// Where the issue list was last seen: an edge 429 has no body to name it.
const SOURCE_KEY = 'community-pulse-source';
// Without any hint (a first visit meeting an edge 429) the repository is unknown to a static page.
export const FALLBACK_SOURCE = 'https://github.com/';

function remembered(storage: Storage | undefined): string | null {
	try {
		const value = storage?.getItem(SOURCE_KEY) ?? null;
		return value && /^https:\/\/github\.com\//.test(value) ? value : null;
	} catch {
		return null;
	}
}

/** The issue list named by the server's Link header on its own 503 answers. */
function linkedSource(response: Response): string | null {
	const match = /<(https?:\/\/[^>]+)>/.exec(response.headers.get('link') ?? '');
	return match?.[1] ?? null;
}

/** One load of the feed. Any answer that is not ok gives an empty list and a link to the issues. */
export async function loadPulse(fetchFn: typeof fetch, storage?: Storage): Promise<PulseView> {
	let response: Response | null = null;
	try {
		response = await fetchFn(PULSE_ENDPOINT, { cache: 'no-store', headers: { accept: 'application/json' } });
		if (response.status === 204) return { status: 'absent' };
		if (response.ok) {
			const body: unknown = await response.json();
			if (isPulseFeed(body)) {
				try {
					storage?.setItem(SOURCE_KEY, body.source);
				} catch {
					// Storage may be full or blocked; the link is a convenience only.
				}
				return { status: 'ok', items: body.items, source: body.source, fetchedAt: body.fetchedAt };
			}
		}
	} catch {
		// A network failure or a body that is not JSON: shown like any other failure.
	}
	const source = (response && linkedSource(response)) ?? remembered(storage) ?? FALLBACK_SOURCE;
	return { status: 'error', items: [], source };
}

/** Black or white, whichever contrasts more with a label's background (WCAG relative luminance). */
export function labelTextColor(hex: string): '#000000' | '#ffffff' {
	const channel = (i: number) => {
		const c = parseInt(hex.slice(i, i + 2), 16) / 255;
		return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	};
	const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
	// Contrast with black is (L + 0.05) / 0.05, with white 1.05 / (L + 0.05); they meet at L ≈ 0.179.
	return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
	['year', 365 * 24 * 3600],
	['month', 30 * 24 * 3600],
	['week', 7 * 24 * 3600],
	['day', 24 * 3600],
	['hour', 3600],
	['minute', 60]
];

/** "3 hours ago", "yesterday", "just now". */
export function timeAgo(iso: string, now: number): string {
	const seconds = Math.round((Date.parse(iso) - now) / 1000);
	if (!Number.isFinite(seconds)) return 'some time ago';
	const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
	for (const [unit, size] of UNITS) {
		if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
	}
	return 'just now';
}
