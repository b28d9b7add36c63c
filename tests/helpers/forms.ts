/** Form posts the way a browser without JavaScript sends them: urlencoded, with an Origin header. */

export interface PageAnswer {
	status: number;
	location: string | null;
	body: string;
	headers: Headers;
}

export async function answer(response: Response): Promise<PageAnswer> {
	return {
		status: response.status,
		location: response.headers.get('location'),
		body: await response.text(),
		headers: response.headers
	};
}

/** GET a page as a browser would ask for it: typed in or bookmarked (Sec-Fetch-Site: none). */
export async function getPage(url: string, cookie?: string): Promise<PageAnswer> {
	return answer(
		await fetch(url, {
			redirect: 'manual',
			headers: { accept: 'text/html', 'sec-fetch-site': 'none', ...(cookie ? { cookie } : {}) }
		})
	);
}

/**
 * POST a form to `url` (e.g. `${base}/admin?/transition`) without JavaScript: the browser sends
 * `Origin`, which SvelteKit's CSRF check compares with the server's own origin.
 */
export async function postForm(
	url: string,
	fields: Record<string, string | string[] | Blob | Blob[]>,
	options: { cookie?: string; origin?: string } = {}
): Promise<PageAnswer> {
	const target = new URL(url);
	const hasFile = Object.values(fields).some((v) => (Array.isArray(v) ? v : [v]).some((one) => one instanceof Blob));
	let body: URLSearchParams | FormData;
	if (hasFile) {
		body = new FormData();
		for (const [k, v] of Object.entries(fields)) {
			for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
		}
	} else {
		body = new URLSearchParams();
		for (const [k, v] of Object.entries(fields))
			for (const one of Array.isArray(v) ? v : [v]) body.append(k, one as string);
	}
	return answer(
		await fetch(url, {
			method: 'POST',
			redirect: 'manual',
			body,
			headers: {
				accept: 'text/html',
				origin: options.origin ?? target.origin,
				...(options.cookie ? { cookie: options.cookie } : {})
			}
		})
	);
}

/** The text of an HTML page without tags, with entities decoded enough for assertions. */
export function textOf(html: string): string {
	return (
		html
			.replace(/<script[\s\S]*?<\/script>/g, ' ')
			.replace(/<style[\s\S]*?<\/style>/g, ' ')
			// A name set apart in its direction (<bdi>) is part of the words around it, as a reader sees it.
			.replace(/<\/?bdi>/g, '')
			.replace(/<[^>]+>/g, ' ')
			.replace(/&quot;/g, '"')
			.replace(/&#39;|&#x27;/g, "'")
			.replace(/&lt;/g, '<')
			.replace(/&gt;/g, '>')
			.replace(/&amp;/g, '&')
			.replace(/\s+/g, ' ')
	);
}
