import { error, isHttpError, type Handle, type RequestEvent } from '@sveltejs/kit';
import { FILE_LIMITS, mebibytes } from '$lib/forms/questions';
import { m } from '$lib/paraglide/messages';
import { isApiPath, jsonError } from './http';

/**
 * Body limits per route (issue 58): a multipart post of the apply form (`/apply`, `/apply/<slug>`, its
 * default and `edit` actions) may carry files, up to 25 MiB in all; the community's look
 * (`/admin/settings?/save`, issue 59) a logo of 512 KiB and its texts, 1 MiB; every other request keeps
 * BODY_SIZE_LIMIT (512K by default). The server's own reader (adapter-node) is given the larger limit
 * (deploy/adapter.js keeps the operator's value in PORTAL_BODY_SIZE_LIMIT), so this is where the smaller
 * one holds: by Content-Length before anything is read, else by counting the bytes as they are read.
 */

/** Route → the actions whose multipart posts carry files, and the most bytes such a post may have. */
const UPLOADS: Record<string, { actions: ReadonlySet<string>; max: number }> = {
	'/apply': { actions: new Set(['default', 'edit']), max: FILE_LIMITS.maxBody },
	'/apply/[slug]': { actions: new Set(['default', 'edit']), max: FILE_LIMITS.maxBody },
	'/admin/settings': { actions: new Set(['save']), max: 1024 * 1024 }
};

/** adapter-node's spelling of a size: bytes, or with K, M or G. */
export function parseBytes(raw: string | undefined, fallback: number): number {
	const match = /^(\d+)([KMG]?)$/i.exec(raw?.trim() ?? '');
	if (raw?.trim() === 'Infinity') return Infinity;
	if (!match) return fallback;
	return Number(match[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match[2]!.toUpperCase() as '' | 'K'];
}

let appLimitBytes: number | undefined;
/**
 * BODY_SIZE_LIMIT in bytes (512K unless set), read once: the environment does not change while the server
 * runs, and every post asked for it (the form posts here, the sign-ins in auth/verify.ts).
 */
export const appLimit = () =>
	(appLimitBytes ??= parseBytes(process.env.PORTAL_BODY_SIZE_LIMIT ?? process.env.BODY_SIZE_LIMIT, 512 * 1024));

function actionOf(url: URL): string {
	for (const [key] of url.searchParams) if (key.startsWith('/')) return key.slice(1);
	return 'default';
}

/** The most bytes this request may have when it is a post that may carry files (the apply form, a logo); else null. */
export function uploadLimit(event: Pick<RequestEvent, 'request' | 'route' | 'url'>): number | null {
	const type = event.request.headers.get('content-type')?.split(';', 1)[0]!.trim().toLowerCase();
	const route = Object.hasOwn(UPLOADS, event.route.id ?? '') ? UPLOADS[event.route.id!]! : null;
	return event.request.method === 'POST' && type === 'multipart/form-data' && route?.actions.has(actionOf(event.url))
		? route.max
		: null;
}

function tooLarge(upload: boolean, max: number): never {
	if (upload) error(413, { code: 'body_too_large', message: m.form_body_too_large({ max: mebibytes(max) }) });
	error(413, { code: 'body_too_large', message: `The body is over the limit of ${max} bytes.` });
}

/** The 413 as a value, for a stream to fail with. */
function tooLargeError(upload: boolean, max: number): unknown {
	try {
		tooLarge(upload, max);
	} catch (err) {
		if (isHttpError(err)) return err;
	}
	return new Error('body too large');
}

export const limitBodies: Handle = ({ event, resolve }) => {
	const { request } = event;
	if (!request.body) return resolve(event);
	const uploadMax = uploadLimit(event);
	const upload = uploadMax !== null;
	const max = uploadMax ?? appLimit();
	if (max === Infinity) return resolve(event);
	const length = Number(request.headers.get('content-length') ?? NaN);
	if (Number.isFinite(length)) {
		// Under /api the contract's error body (docs/http.md); pages get the error page.
		if (length > max && isApiPath(event.url.pathname))
			return jsonError(413, 'body_too_large', `The body is over the limit of ${max} bytes.`);
		if (length > max) tooLarge(upload, max);
		return resolve(event);
	}
	// No Content-Length (chunked): counted as it is read; the reader gets the 413 when it passes the limit.
	let seen = 0;
	const body = request.body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				seen += chunk.byteLength;
				if (seen > max) controller.error(tooLargeError(upload, max));
				else controller.enqueue(chunk);
			}
		})
	);
	event.request = new Request(request, { body, duplex: 'half' } as RequestInit);
	return resolve(event);
};
