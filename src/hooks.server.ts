import type { Handle, HandleFetch, HandleServerError, RequestEvent, ServerInit } from '@sveltejs/kit';
import { chain } from '$lib/server/platform/chain';
import { building } from '$app/environment';
import { env } from '$env/dynamic/private';
import { env as publicEnv } from '$env/dynamic/public';
import { ConfigError } from '$lib/server/platform/config';
import path from 'node:path';
import { SchemaNotMigratedError, faultForLog, isDatabaseUnavailable, sqlState } from '$lib/server/db/errors';
import { bearerMatches } from '$lib/server/auth/bearer';
import { rolesOf } from '$lib/server/auth/guards';
import { CALLER_ROLES_HEADER, callerRolesProbe } from '$lib/platform/hidden-sections';
import { apiErrorBodies, refuseCrossSiteForms, refuseUnknownActions } from '$lib/server/platform/request-guards';
import { routedPath } from '$lib/server/platform/http';
import { limitBodies } from '$lib/server/platform/body-limit';
import { runtime, serverLog, startRuntime } from '$lib/server/platform/runtime';
import {
	HSTS,
	PRIVATE_NO_STORE,
	SAFE_APP_MANIFEST_HEADERS,
	SAFE_APP_MANIFEST_PATH,
	STATIC_HEADERS,
	servedPolicy,
	withFrameAncestors
} from '../deploy/security-headers.js';
import { SESSION_COOKIE } from '$lib/server/auth/session';
import { SESSION_CHECK_ROUTE, answerSessionCheck, sessionAndMember } from '$lib/server/auth/session-check';
import { NONCE_ROUTE, answerNonce } from '$lib/server/auth/nonce';
import { VERIFY_ROUTE, answerVerify } from '$lib/server/auth/verify';
import { NODE_ANSWERS_EVENT, type NodeAnswer } from '../deploy/node-answers.js';
import { fileErrorInWords, startFailed } from '../deploy/start-up.js';
import { outboxRowsWritten } from '$lib/server/outbox/written';
import { deliverAfterResponse, startDeliveryWorker } from '$lib/server/platform/deliveries';
import { startRoundReleases } from '$lib/server/programs/release';
import { logRequestError, observeRequests } from '$lib/server/platform/observability';
import { eligibilityStartProblem } from '$lib/server/eligibility/startup';
import { nameMembershipProgram } from '$lib/server/programs/membership';
import { community } from '$lib/branding/community';
import { DataFolderHeldError, DataFolderOpenError } from '$lib/server/db/data-folder-lock.js';
import { shutDown, startFailureInWords } from '$lib/server/db/lifecycle';
import { startBackups } from '$lib/server/db/backups';
import { notFoundAsUnknownPath } from '$lib/server/platform/not-found';
import { localize, localeOfRequest } from '$lib/server/i18n/localize';
import { pageTemplate, scriptsOnly } from '$lib/server/platform/page-template';
import { accentStyleSheet } from '$lib/server/branding/accent-style';
import { textDirection } from '$lib/i18n/locales';
import { draftAnswers204 } from '$lib/server/applications/drafts';
import { blobStoreOf } from '$lib/server/files/store';
import { startFileSweep } from '$lib/server/files/sweep';

/** Why a Postgres server refused the start, in words (a database that does not exist, a refused user), or null. */
function serverRefusalInWords(err: unknown, databaseUrl: string | null): string | null {
	if (!databaseUrl) return null;
	const state = sqlState(err);
	// The name only: DATABASE_URL may carry a password.
	const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || '(the user name)';
	if (state === '3D000')
		return `The database "${name}" does not exist on the server DATABASE_URL names: create it (createdb ${name}), run npm run db:migrate, and start again.`;
	if (state === '28P01' || state === '28000')
		return `The server DATABASE_URL names refused its user: ${err instanceof Error ? (err.cause instanceof Error ? err.cause : err).message : String(err)}.`;
	return null;
}

/** The embedded database's folder, absolute; null in memory or on a Postgres server. */
const embeddedFolderOf = (kind: 'pglite' | 'postgres', dataDir: string) =>
	kind === 'pglite' && !dataDir.startsWith('memory://') ? path.resolve(dataDir) : null;

export const init: ServerInit = async () => {
	if (building) return;
	let database, config;
	try {
		// $env/dynamic/private leaves out the PUBLIC_ variables; they are validated with the rest.
		({ database, config } = await startRuntime({ ...publicEnv, ...env }));
	} catch (err) {
		// A bad setting, a data folder another live process holds (nothing written to it), or one the
		// lock cannot be written in (no space, no permission): one line, status 1.
		if (err instanceof ConfigError)
			startFailed(`Invalid configuration: ${err.problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}`);
		if (err instanceof DataFolderHeldError || err instanceof DataFolderOpenError) startFailed(err.message);
		const words = fileErrorInWords(err);
		if (words) startFailed(`Cannot start: ${words}.`);
		throw err;
	}
	try {
		await database.ready();
		// Programme `membership` carries the community's name, which the build holds (drizzle/0023).
		await nameMembershipProgram(database.db, community.name);
		// Eligibility rules without a chain 137 endpoint: refused at start, like any bad setting.
		const problem = await eligibilityStartProblem(database.db, config.polygonRpcUrl);
		if (problem) startFailed(problem.message);
	} catch (err) {
		// A server whose schema is behind the committed migrations: status 1 until npm run db:migrate.
		if (err instanceof SchemaNotMigratedError) startFailed(err.message);
		const words =
			(await startFailureInWords(err, config.pgliteDataDir, database.kind)) ??
			serverRefusalInWords(err, config.databaseUrl);
		if (words) startFailed(words);
		if (!isDatabaseUnavailable(err))
			startFailed(`Cannot start: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
		// Not fatal: requests that need the database answer 503 until it is back.
		serverLog('warn', 'The database is unreachable at start; retrying on each request that needs it.');
	}
	serverLog(
		'info',
		database.kind === 'pglite'
			? `Database: the embedded database in ${embeddedFolderOf(database.kind, config.pgliteDataDir) ?? config.pgliteDataDir}`
			: 'Database: the Postgres server at DATABASE_URL',
		{
			version: __PORTAL_VERSION__,
			database: database.kind === 'pglite' ? 'embedded' : 'postgres',
			dataFolder: embeddedFolderOf(database.kind, config.pgliteDataDir),
			backups: config.backupKeep > 0 && config.backupDir ? path.resolve(config.backupDir) : null
		}
	);
	// On Vercel a function runs only while it serves a request: the cron route and the first attempt
	// after a response deliver there instead (README, "What differs on Vercel").
	const stops: (() => Promise<void>)[] = [];
	// One worker for every channel that is on: webhooks and the applicants' push and mail
	// (docs/notifications.md); outside every request, stopped before the database closes.
	const worker = config.onVercel ? null : startDeliveryWorker(database, config);
	if (worker) stops.push(() => worker.stop());
	// Rounds released together whose release_at has come (one that passed while no server ran: now), so
	// the worker sends their held messages (docs/application-form.md "Programmes and rounds").
	if (!config.onVercel)
		stops.push(
			startRoundReleases(database, undefined, (r) =>
				serverLog('info', `Round ${r.roundId} released: ${r.notifications} applicants' notifications now go.`, {
					round: r.roundId,
					notifications: r.notifications,
					deliveries: r.deliveries
				})
			)
		);
	// Stored files no row references (a crash between an upload's bytes and its row), and temporaries an
	// upload cut off left: removed once an hour, once older than the sweep's grace (files/sweep.ts).
	if (!config.onVercel) stops.push(startFileSweep(database, blobStoreOf(config.files)));
	// Daily backups on either engine (not on Vercel, which has no lasting disk), and for the embedded
	// database in a folder db:backup served while this server holds it.
	const embeddedFolder = embeddedFolderOf(database.kind, config.pgliteDataDir);
	if (!config.onVercel && config.backupDir)
		stops.push(
			await startBackups(
				database,
				{
					folder: config.backupDir,
					keep: config.backupKeep,
					socketFolder: embeddedFolder,
					version: __PORTAL_VERSION__,
					filesDir: config.files.s3 ? null : config.files.dir
				},
				serverLog
			)
		);
	// The Node server emits sveltekit:shutdown once it has closed (SIGTERM, SIGINT): the database closes
	// cleanly (the next start needs no recovery) and the process ends (docs/operating.md).
	process.once('sveltekit:shutdown', () => void shutDown(database, stops, serverLog));
	// The portal's Node server answers the session check (decision 0037), the nonce and a plain JSON
	// verify (0053) itself; on Vercel nobody listens.
	const answers: Record<string, NodeAnswer> = {
		[`GET ${SESSION_CHECK_ROUTE}`]: answerSessionCheck,
		[`GET ${NONCE_ROUTE}`]: answerNonce,
		[`POST ${VERIFY_ROUTE}`]: answerVerify
	};
	(process.emit as (event: string, ...args: unknown[]) => boolean)(NODE_ANSWERS_EVENT, answers);
};

type SessionRead = Pick<App.Locals, 'session' | 'member'>;

/**
 * The request's session and the member it signs in, read once per request: the roles probe that
 * reroute makes on every request (src/hooks.ts) reads it first, readSession takes the same read.
 */
const sessionReads = new WeakMap<Request, Promise<SessionRead>>();
function sessionOf(event: RequestEvent): Promise<SessionRead> {
	let read = sessionReads.get(event.request);
	if (!read) {
		read = sessionAndMember(event.cookies.get(SESSION_COOKIE));
		sessionReads.set(event.request, read);
	}
	return read;
}

/** Unseals the session cookie once: event.locals.session and the member it signs in. */
const readSession: Handle = async ({ event, resolve }) => {
	event.locals.session = null;
	event.locals.member = null;
	if (!building) ({ session: event.locals.session, member: event.locals.member } = await sessionOf(event));
	return resolve(event);
};

/** Answers of /api/auth/* (however spelled) are never cached (the HTTP contract's Cache-Control: no-store). */
const noStoreAuth: Handle = ({ event, resolve }) => {
	// Every other path passes through without an await of its own.
	if (!routedPath(event.url.pathname).startsWith('/api/auth/')) return resolve(event);
	return noStore(resolve(event));
};

/** An inner handle may answer at once (a refused form post): `answer` is not always a promise. */
async function noStore(answer: Response | Promise<Response>): Promise<Response> {
	const response = await answer;
	response.headers.set('cache-control', 'no-store');
	return response;
}

/**
 * The security headers of every answer (docs/security.md; the policy itself comes from kit.csp), and
 * no cache may store a page rendered per request or its __data.json. Outermost, so the hidden /admin
 * gets exactly what an unknown path gets
 * (hidden sections are rerouted to no route in src/hooks.ts).
 */
const securityHeaders: Handle = async ({ event, resolve }) => {
	const response = await resolve(event);
	for (const [name, value] of Object.entries(STATIC_HEADERS)) response.headers.set(name, value);
	const policy = response.headers.get('content-security-policy');
	if (policy && !building) {
		const { config } = runtime();
		// kit.csp allows WalletConnect's hosts; keep them only when this configuration offers it.
		const served = servedPolicy(policy, { walletConnect: config.walletConnectProjectId !== null });
		// SAFE_APP_ORIGINS (decision 0022): kit.csp says frame-ancestors 'none'; open it to those origins.
		response.headers.set('content-security-policy', withFrameAncestors(served, config.safeAppOrigins));
	}
	if (event.url.pathname === SAFE_APP_MANIFEST_PATH)
		for (const [name, value] of Object.entries(SAFE_APP_MANIFEST_HEADERS)) response.headers.set(name, value);
	if (event.url.protocol === 'https:') response.headers.set('strict-transport-security', HSTS);
	const html = response.headers.get('content-type')?.startsWith('text/html');
	if ((html || event.isDataRequest) && !response.headers.has('cache-control')) {
		response.headers.set('cache-control', PRIVATE_NO_STORE);
	}
	return response;
};

/**
 * On Vercel, where no worker runs between requests: a request that wrote outbox rows starts their
 * first attempt once its response is sent (waitUntil), rather than leaving them to the next cron run.
 */
const deliverAfterVercelResponse: Handle = ({ event, resolve }) => {
	// Elsewhere the worker delivers: the request passes through without another await.
	if (building || !runtime().config.onVercel) return resolve(event);
	const before = outboxRowsWritten();
	return (async () => {
		const response = await resolve(event);
		if (outboxRowsWritten() !== before) {
			const { config, database } = runtime();
			deliverAfterResponse(database, config);
		}
		return response;
	})();
};

/**
 * src/app.html's placeholders: `<html lang dir>` in the request's locale (i18n/localize.ts, which runs
 * before any page renders), and a saved accent's style sheet in the head (branding/accent-style.ts); the
 * page's Link header names its scripts only (platform/page-template.ts).
 */
const fillPageTemplate = pageTemplate(
	async (event) => {
		const locale = localeOfRequest(event.locals);
		return [
			['%lang%', locale],
			['%dir%', textDirection(locale)],
			['%portal.accent%', await accentStyleSheet()]
		];
	},
	{ preload: scriptsOnly }
);

// The request guards of src/lib/server/platform/request-guards.ts come first: they refuse before anything reads the body.
// chain() rather than SvelteKit's sequence(): the same order, without a tracing span per handle.
export const handle = chain(
	observeRequests,
	securityHeaders,
	notFoundAsUnknownPath,
	apiErrorBodies,
	refuseCrossSiteForms,
	limitBodies,
	readSession,
	localize,
	fillPageTemplate,
	refuseUnknownActions,
	draftAnswers204,
	noStoreAuth,
	deliverAfterVercelResponse
);

/**
 * Answers reroute's question (src/hooks.ts) of who is asking for a hidden section, from this request's
 * session cookie, without making any request; every other fetch goes out as asked.
 */
export const handleFetch: HandleFetch = async ({ event, request, fetch }) => {
	// The probe is the one Request object reroute passes (SvelteKit's fetch hands it on as it is).
	if (request !== callerRolesProbe()) return fetch(request);
	const member = building ? null : (await sessionOf(event)).member;
	const { config } = runtime();
	const authorization = event.request.headers.get('authorization');
	const roles: string[] = rolesOf(member);
	// Vercel Cron calls GET only: any other method with the secret still meets the unknown path.
	if (!building && event.request.method === 'GET' && bearerMatches(authorization, config.cronSecret))
		roles.push('cron');
	// /metrics is the operator's: shown to a GET (or HEAD) that carries METRICS_TOKEN (docs/observability.md);
	// any other method with the token meets the unknown path (404), as without it, never a 405 that shows the path.
	const read = event.request.method === 'GET' || event.request.method === 'HEAD';
	if (!building && read && bearerMatches(authorization, config.metricsToken)) roles.push('operator');
	return new Response(null, { status: 204, headers: { [CALLER_ROLES_HEADER]: roles.join(' ') } });
};

export const handleError: HandleServerError = ({ error, event, status, message }) => {
	// A failed query names the database's reason, never its parameters (faultForLog); once, with the request id.
	if (status >= 500) logRequestError(event, faultForLog(error), status);
	return { message };
};
