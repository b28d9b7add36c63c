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
 * The URL of the /admin list at `query` (empty filters and page 1 left out): for the list's links,
 * and, with `action`, for a form that posts that action and comes back to the same list.
 */
export function adminListHref(query: AdminListQuery, action?: string): string {
	const params = new URLSearchParams();
	for (const key of ['review', 'allowlist', 'distribution', 'address'] as const) {
		const value = query[key];
		if (value) params.set(key, value);
	}
	if (query.page > 1) params.set('page', String(query.page));
	const parts = [action ? `/${action}` : '', params.toString()].filter(Boolean);
	return parts.length ? `/admin?${parts.join('&')}` : '/admin';
}
