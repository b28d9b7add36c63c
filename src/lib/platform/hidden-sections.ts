/**
 * Sections of the portal that answer anyone without the role exactly as an unknown path does, for every
 * spelling, method and content type (docs/security.md). A new hidden section is one line here.
 *
 * `src/hooks.ts` reroutes such a request to UNMATCHED_PATH before SvelteKit picks a route, so the answer
 * is SvelteKit's own unknown-path answer, rendered in the same request: same status, headers, body and
 * connection handling, nothing fetched.
 */
/**
 * Roles beyond a session's: `cron`, a GET carrying `Authorization: Bearer <CRON_SECRET>` (Vercel Cron's
 * call); `operator`, a request carrying METRICS_TOKEN (docs/observability.md). No session has either.
 */
export type Role = 'member' | 'admin' | 'reviewer' | 'cron' | 'operator';

export const HIDDEN_SECTIONS: readonly { prefix: string; roles: readonly Role[] }[] = [
	{ prefix: '/admin', roles: ['admin'] },
	{ prefix: '/review', roles: ['reviewer'] },
	{ prefix: '/api/cron', roles: ['cron'] },
	{ prefix: '/metrics', roles: ['operator'] }
];

/** Matches no route. */
export const UNMATCHED_PATH = '/__no_such_route__/';

let probe: Request | undefined;
/**
 * What reroute asks with the request's own `fetch` to learn the caller's roles; `handleFetch`
 * (src/hooks.server.ts) recognises this very object and answers it from the session cookie without making
 * any request. One Request for the process, made the first time it is asked for: SvelteKit's fetch takes a
 * Request as it is, where a path was a new URL and a new Request on every request (issue 60). No other
 * request is this object, whatever its address; and its address is one no network resolves, so were it
 * ever sent, it would fail and reroute would read no roles.
 */
export const callerRolesProbe = (): Request => (probe ??= new Request('http://portal.invalid/__portal_caller_roles__'));

/**
 * The probe's answer carries the roles in this header, space-separated, and no body: every request asks,
 * and a body is a stream to make and to read again (issue 60: a quarter of a cheap request's CPU).
 */
export const CALLER_ROLES_HEADER = 'x-portal-caller-roles';

/** The hidden section a decoded path lies in, or null. */
export const hiddenSection = (path: string) =>
	HIDDEN_SECTIONS.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`)) ?? null;
