/** The /admin list's filters and page, as its query string carries them. */
export interface AdminListQuery {
	review?: string;
	allowlist?: string;
	distribution?: string;
	/** A lowercase address or part of one. */
	address?: string;
	page: number;
}

/**
 * The URL of the /admin list: for its links (empty filters and page 1 left out), for a form that
 * posts `action` and comes back to the same list, and for that redirect back, which keeps the
 * query string the form was posted with (`URLSearchParams`) minus the action's own `/name` key.
 */
export function adminListHref(query: AdminListQuery | URLSearchParams, action?: string): string {
	const params = new URLSearchParams();
	if (query instanceof URLSearchParams) {
		for (const [key, value] of query) if (!key.startsWith('/')) params.append(key, value);
	} else {
		for (const key of ['review', 'allowlist', 'distribution', 'address'] as const) {
			const value = query[key];
			if (value) params.set(key, value);
		}
		if (query.page > 1) params.set('page', String(query.page));
	}
	const parts = [action ? `/${action}` : '', params.toString()].filter(Boolean);
	return parts.length ? `/admin?${parts.join('&')}` : '/admin';
}
