import { error, fail, type ActionFailure, type RequestEvent } from '@sveltejs/kit';
import { SchemaNotMigratedError, isDatabaseUnavailable } from './db/errors';
import type { Database } from './db/client';
import type { Refusal } from './forms';
import { ForbiddenError, UnauthenticatedError, requireAdmin, requireMember, type SignedInMember } from './guards';
import { useDb } from './runtime';

/**
 * Runs page work against the database; an outage becomes the 503 page (never a 500 or a hang).
 * Only the outage is mapped: every other error keeps its own meaning.
 */
export async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
	try {
		return await work(await useDb());
	} catch (err) {
		if (isDatabaseUnavailable(err) || err instanceof SchemaNotMigratedError) {
			error(503, { code: 'database_unavailable', message: 'The database is unavailable. Try again in a moment.' });
		}
		throw err;
	}
}

/** The signed-in member for a member page or action; otherwise the 401 page with its sign-in prompt. */
export function memberOr401(locals: App.Locals): SignedInMember {
	try {
		return requireMember({ locals });
	} catch (err) {
		if (err instanceof UnauthenticatedError) error(401, { code: err.code, message: err.message });
		throw err;
	}
}

/**
 * The admin for /admin; anyone else gets exactly the 404 of an unknown path, so that the admin
 * screen's existence stays hidden (docs/pages-and-forms.md "Hiding /admin").
 */
export function adminOr404(locals: App.Locals): SignedInMember {
	try {
		return requireAdmin({ locals });
	} catch (err) {
		if (err instanceof UnauthenticatedError || err instanceof ForbiddenError) error(404, 'Not Found');
		throw err;
	}
}

/** A refused action: the page is rendered with the refusal's status; a 429 also says Retry-After. */
export function refuse<T extends Record<string, unknown>>(
	setHeaders: (headers: Record<string, string>) => void,
	refusal: Refusal,
	data: T
): ActionFailure<Refusal & T> {
	if (refusal.status === 429) setHeaders({ 'retry-after': String(refusal.retryAfterSeconds) });
	return fail(refusal.status, { ...refusal, ...data });
}

/** /admin and everything under it. */
export const isAdminPath = (pathname: string) => pathname === '/admin' || pathname.startsWith('/admin/');

/**
 * For anyone who is not an admin, every request under /admin (any method or content type, SvelteKit's
 * __data.json and enhanced-form requests too) gets what a visitor's GET /admin renders: the 404 page
 * of an unknown path. Null when the request may go on. Used by hooks.server.ts `handle`; the routes
 * keep their own adminOr404 as a second line.
 */
export function hiddenAdmin(event: RequestEvent): Promise<Response> | null {
	if (event.isSubRequest || event.locals.member?.isAdmin || !isAdminPath(event.url.pathname)) return null;
	return event.fetch('/admin', { headers: { accept: 'text/html' }, credentials: 'omit' });
}
