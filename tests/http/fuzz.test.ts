// The portal under attack: every route, page and form action (tests/http/fuzz-routes.ts), as a visitor,
// a member and an admin, with seeded hostile requests. No answer is a 5xx, every /api error has the
// contract's body, a hidden route answers exactly as an unknown path, and nothing is written
// (issue #32). Every delivery channel is on and poisoned meanwhile (issue 54): the member's application
// has outbox rows that cannot be sent (push keys no ECDH takes, a mail server that cuts DATA, a webhook
// receiver that answers garbage), which the worker tries and retries while the fuzz runs; the server
// never exits, /healthz stays up, and the other rows are delivered. Replay a run with FUZZ_SEED=<the printed seed>.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { withoutNonces } from '../helpers/csp';
import { getPage, postForm, textOf } from '../helpers/forms';
import {
	METHODS,
	PROTOTYPE_NAMES,
	cookieFor,
	distinctNames,
	hostileBody,
	hostileValue,
	originAndAccept,
	send,
	spelling,
	type Answer,
	type Sent
} from '../helpers/fuzz-requests';
import { NOT_A_POINT, POISON_MAIL, THREW, startChannels, type Channels } from '../helpers/notifying-server';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { routeInventory } from '../helpers/route-inventory';
import { isApiPath } from '../../src/lib/server/platform/http';
import { signIn } from '../helpers/siwe';
import { KNOWN } from './fuzz-known';
import { ROUTES, type FuzzRoute, type Who } from './fuzz-routes';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const WHO: Who[] = ['visitor', 'member', 'admin'];
/** The programme `[slug]` is filled with: the one every portal has (drizzle/0023), open, holding the member's application. */
const PROGRAM = 'membership';
/** How often the fuzz asks /healthz between its requests. */
const HEALTH_EVERY = 100;

describe('the fuzz table', () => {
	it('lists every route and form action under src/routes, and only those', () => {
		const listed = ROUTES.flatMap((r) => [r.id, ...Object.keys(r.actions ?? {}).map((a) => `${r.id}?/${a}`)]).sort();
		const existing = routeInventory();
		expect(existing).toContain('/admin?/transition');
		expect(listed, 'add the missing routes and actions to tests/http/fuzz-routes.ts').toEqual(existing);
	});
});

/** What must hold of every answer; returns the problem, or null. */
function problem(sent: Sent, a: Answer, write: boolean): string | null {
	if (a.status >= 500) return `status ${a.status}`;
	if (/\[object \w+\]/.test(a.body)) return `a page that says ${/\[object \w+\]/.exec(a.body)![0]}`;
	// The server answered before the whole body was sent (413) and closed: nothing to read.
	if (a.status === 0) return null;
	// A HEAD answer has no body to check.
	if (isApiPath(new URL(`http://x${sent.path}`).pathname) && a.status >= 400 && sent.method !== 'HEAD') {
		let body: unknown;
		try {
			body = JSON.parse(a.body);
		} catch {
			return `an /api error that is not JSON: ${a.body.slice(0, 80)}`;
		}
		const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
		if (typeof error?.code !== 'string' || typeof error.message !== 'string')
			return `an /api error without { error: { code, message } }: ${a.body.slice(0, 80)}`;
	}
	// An enhanced form's answer is JSON whose type says (a refusal is a 200 too); otherwise any 2xx or 3xx
	// but SvelteKit's trailing-slash 308 is an action that ran (Kit's ?/toString answered a visitor 200).
	const enhanced = a.body.startsWith('{"type":');
	const accepted = enhanced ? /^\{"type":"(success|redirect)"/.test(a.body) : a.status < 400 && a.status !== 308;
	if (write && accepted) return `a hostile ${sent.method} was accepted (${a.status} ${a.body.slice(0, 60)})`;
	return null;
}

describe('hostile requests to every route, as a visitor, a member and an admin', () => {
	let portal: OwnDatabasePortal;
	let channels: Channels;
	let base: URL;
	const cookies: Record<Who, string | undefined> = { visitor: undefined, member: undefined, admin: undefined };
	let applicationId = '';
	const problems: string[] = [];
	let sent = 0;

	beforeAll(async () => {
		console.log(`fuzz seed ${SEED}, ${RUNS} runs (replay: FUZZ_SEED=${SEED})`);
		// Every channel, each with a poisoned destination: a working webhook receiver beside one that answers garbage.
		channels = await startChannels({ webhooks: ['working', 'garbage'], dropMailTo: POISON_MAIL });
		portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address, ...channels.env });
		base = new URL(portal.url);
		cookies.member = await signIn(portal.url, member);
		cookies.admin = await signIn(portal.url, admin);
		// The member's push subscription with keys no ECDH takes (POST refuses them: stored as an older version
		// did) and a verified address whose mail the SMTP server cuts: the application below poisons every channel.
		await portal.query(`with subscribed as (
				insert into push_subscriptions (member_address, endpoint, p256dh, auth)
				values ('${member.address.toLowerCase()}', '${channels.push.url}/push/poison', '${NOT_A_POINT}', 'AAAAAAAAAAAAAAAAAAAAAA')
			) insert into member_emails (address, email, verified_at) values ('${member.address.toLowerCase()}', '${POISON_MAIL}', now())`);
		// The form asks one question of its own, so that `answers.city` (fuzz-routes.ts) is read and checked:
		// a field of a key the form does not have is ignored by contract, and a poisoned one would be accepted.
		const saved = await postForm(
			`${portal.url}/admin/form?/save`,
			{
				questionCount: '1',
				'questions.0.key': 'city',
				'questions.0.label': 'City',
				'questions.0.type': 'short_text',
				'questions.0.required': 'on'
			},
			{ cookie: cookies.admin }
		);
		expect(saved.status).toBe(303);
		const applied = await postForm(
			`${portal.url}/apply`,
			{ displayName: 'Fuzz', motivation: 'A real application to aim at.', 'answers.city': 'Lisbon' },
			{ cookie: cookies.member }
		);
		expect(applied.status).toBe(303);
		applicationId = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(
			(await getPage(`${portal.url}/admin`, cookies.admin)).body
		)![1]!;
	}, 180_000);
	afterAll(async () => {
		await portal?.stop();
		await channels?.stop();
	});

	/** The issue 54 property: the server is up, /healthz answers, no process of it ended by itself. */
	async function stillUp(when: string) {
		const health = await send(base, { method: 'GET', path: '/healthz', headers: {} });
		if (health.status !== 200) problems.push(`${when}: /healthz answered ${health.status}`);
		if (portal.crashes().length) problems.push(`${when}: the server exited (${portal.crashes().join(', ')})`);
	}

	/** A route's path with its parameters filled: a real application's id, a real programme's slug. */
	const filled = (path: string) => path.replace('[id]', applicationId).replace('[slug]', PROGRAM);
	const pathOf = (route: FuzzRoute) => filled(route.id);
	const unknownTwin = (path: string) => path.replace(/^(\/+(?:\.\/)?)(admin|%61dmin|ADMIN)/, '$1nope');

	/** Sends `request` to `route` as `who` and records what is wrong with the answer. */
	async function attempt(route: FuzzRoute, who: Who, request: Sent, canonical: string, write: boolean) {
		let a = await send(base, request);
		if (++sent % HEALTH_EVERY === 0) await stillUp(`after ${sent} requests`);
		const what = `${request.method} ${request.path} as ${who}`;
		const wrong = problem(request, a, write);
		if (wrong) problems.push(`${what}: ${wrong}`);
		// Hidden from this identity: the same request to an unknown path must get the same answer.
		if (route.shownTo && !route.shownTo.includes(who)) {
			// An answer given before the body was read races the client's write (status 0 on a reset):
			// send the pair again until both were read, so only the answers themselves are compared.
			let twin = await send(base, { ...request, path: unknownTwin(request.path) });
			for (let retry = 0; retry < 5 && (a.status === 0 || twin.status === 0); retry++) {
				[a, twin] = [await send(base, request), await send(base, { ...request, path: unknownTwin(request.path) })];
			}
			// Every header, the connection's too, but the date, the etag, the request's own id
			// (docs/observability.md) and nonces of a rendering.
			const same = (x: Answer) => [
				x.status,
				Object.entries(x.headers)
					.filter(([name]) => !['date', 'etag', 'x-request-id'].includes(name))
					.map(([n, v]) => `${n}: ${withoutNonces(String(v))}`),
				withoutNonces(x.body)
			];
			if (JSON.stringify(same(a)) !== JSON.stringify(same(twin)))
				problems.push(
					`${what}: ${a.status} where the unknown path ${unknownTwin(request.path)} answers ${twin.status} (${canonical})`
				);
		}
	}

	/** The fields `action` of `route` reads; for a name that is no action of it, every action's. */
	const fieldsOf = (route: FuzzRoute, action: string): readonly string[] =>
		route.actions && Object.hasOwn(route.actions, action)
			? route.actions[action]!
			: Object.values(route.actions ?? {}).flat();

	it('never a 5xx, a malformed /api error, a hidden route told apart, or a write', async () => {
		const before = await portal.rowCounts();
		const origin = portal.url;
		// What the held-out fuzz of issue #32 found, each once.
		for (const [id, who, method, path, contentType, body, extra] of KNOWN) {
			const headers: Record<string, string> = { origin, accept: 'text/html', ...extra };
			if (cookies[who]) headers.cookie = cookies[who];
			if (contentType) headers['content-type'] = contentType;
			const route = ROUTES.find((r) => r.id === id)!;
			const request = {
				method,
				path: filled(path),
				headers,
				body: body === undefined ? undefined : Buffer.from(body)
			};
			await attempt(route, who, request, id, !!route.actions && method === 'POST');
		}
		// Every route, method and identity once, with a poisoned form body.
		for (const route of ROUTES)
			for (const who of WHO)
				for (const method of METHODS) {
					const body = fc.sample(hostileBody(Object.values(route.actions ?? {}).flat()), {
						seed: SEED,
						numRuns: 1
					})[0]!;
					const headers: Record<string, string> = { origin, accept: 'text/html' };
					if (cookies[who]) headers.cookie = cookies[who];
					if (body.contentType) headers['content-type'] = body.contentType;
					await attempt(
						route,
						who,
						{ method, path: pathOf(route), headers, body: body.body },
						route.id,
						!!route.actions && method === 'POST'
					);
				}
		// Then seeded hostile requests of every kind.
		const requests = fc.constantFrom(...ROUTES).chain((route) => {
			const actions = Object.keys(route.actions ?? {});
			return (
				fc
					.record({
						route: fc.constant(route),
						who: fc.constantFrom(...WHO),
						method: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
						spell: spelling,
						action: fc.constantFrom(...actions, ...PROTOTYPE_NAMES, 'default', '', 'x', 'transition'),
						query: fc.array(
							fc.tuple(
								fc.constantFrom(...(route.query ?? []), 'done', '__proto__', 'x-sveltekit-invalidated'),
								hostileValue
							),
							{ maxLength: 4 }
						),
						context: originAndAccept(origin)
					})
					// The body is poisoned in a field the chosen action reads (every action's fields for a name that is
					// none): a poison in a field another action reads left this one a valid post, "accepted" rightly
					// (a note's valid `body` beside a poisoned `txHash` failed CI once).
					.chain((r) =>
						hostileBody([...fieldsOf(route, r.action), ...(route.json ?? [])]).map((body) => ({ ...r, body }))
					)
					.chain((r) => cookieFor(cookies[r.who]).map((cookie) => ({ ...r, cookie })))
			);
		});
		await fc.assert(
			fc.asyncProperty(requests, async ({ route, who, method, spell, action, query, body, context, cookie }) => {
				const search = [
					...(route.actions && method === 'POST' ? [`/${action}`] : []),
					...query.map(([k, v]) => `${k}=${v}`)
				].join('&');
				const path = spell(pathOf(route)) + (search ? (spell(pathOf(route)).includes('?') ? '&' : '?') + search : '');
				const headers: Record<string, string> = {};
				if (cookie) headers.cookie = cookie;
				if (context.origin) headers.origin = context.origin;
				if (context.accept) headers.accept = context.accept;
				if (context.action) headers['x-sveltekit-action'] = 'true';
				if (body.contentType) headers['content-type'] = body.contentType;
				await attempt(
					route,
					who,
					{ method, path, headers, body: body.body },
					route.id,
					!!route.actions && method === 'POST' && !route.inputless?.includes(action)
				);
			}),
			{ seed: SEED, numRuns: RUNS }
		);
		// Every poisoned row was tried while the fuzz ran (the push row's sender threw, the mail was cut, the
		// garbage was read) and the healthy rows were delivered: the application's event to the working receiver.
		const { push, mail, receiver, garbage } = channels;
		await expect
			.poll(
				async () => ({
					pushedPoison: push.hits.get('/push/poison') ?? 0,
					mailCut: mail.dropped > 0,
					garbageRead: garbage!.hits() > 0,
					delivered: receiver!.received.some((r) => r.body.includes('application.submitted')),
					threw: textOf((await getPage(`${portal.url}/admin/webhooks`, cookies.admin)).body).includes(THREW)
				}),
				{ timeout: 30_000 }
			)
			.toEqual({ pushedPoison: 0, mailCut: true, garbageRead: true, delivered: true, threw: true });
		await stillUp('after the fuzz');
		expect(problems.slice(0, 40), `seed ${SEED}: ${problems.length} problems`).toEqual([]);
		expect(await portal.rowCounts(), `seed ${SEED}: a refused request wrote`).toEqual(before);
		expect(portal.output(), 'the server logged a fault').not.toMatch(/Internal Error|Failed query|at async/);
		expect(sent).toBeGreaterThan(RUNS);
	}, 170_000);

	// Issue 39: one post of many distinct field names stalled every request for 10-35 s. Each form action
	// gets such bodies (1 KiB, 64 KiB, 500 KiB: under the 512 KiB limit) as an admin, who may use them all;
	// each is answered within 2 s with a 4xx (or the normal answer), and /healthz asked while it is
	// read answers within 200 ms of its idle time (the contract's bounds, docs/security.md).
	it('answers a post of many distinct field names within a bound, and /healthz meanwhile', async () => {
		const before = await portal.rowCounts();
		const slow: string[] = [];
		let posts = 0;
		const timed = async (request: Sent) => {
			const started = performance.now();
			const answer = await send(base, request);
			return { answer, ms: performance.now() - started };
		};
		for (const route of ROUTES)
			for (const [action, fields] of Object.entries(route.actions ?? {}))
				for (const body of [
					distinctNames(fields, 1024),
					distinctNames(fields, 64 * 1024),
					distinctNames(fields, 500 * 1024),
					distinctNames(fields, 500 * 1024, true)
				]) {
					const path = `${pathOf(route)}${action === 'default' ? '' : `?/${action}`}`;
					const headers = {
						origin: portal.url,
						accept: 'text/html',
						cookie: cookies.admin!,
						'content-type': body.contentType!
					};
					// The best of three tries: the shared machine may pause any one request; the quadratic
					// reader took 10-35 s every time.
					let problems: string[] = [];
					for (let attempt = 0; attempt < 3 && (attempt === 0 || problems.length); attempt++) {
						const idle = await timed({ method: 'GET', path: '/healthz', headers: {} });
						const post = timed({ method: 'POST', path, headers, body: body.body });
						// Asked once the post is on its way: a server busy reading it would answer late.
						await new Promise((resolve) => setTimeout(resolve, 5));
						const health = await timed({ method: 'GET', path: '/healthz', headers: {} });
						const { answer, ms } = await post;
						posts++;
						const what = `POST ${path} with ${body.kind}`;
						problems = [];
						if (answer.status >= 500 || answer.status === 0 || ms > 2000)
							problems.push(`${what}: ${answer.status} after ${Math.round(ms)} ms`);
						// The stall the post caused: /healthz against itself asked just before, not the machine's pace.
						if (health.answer.status !== 200 || health.ms - idle.ms > 200)
							problems.push(
								`${what}: /healthz ${health.answer.status} after ${Math.round(health.ms)} ms (idle ${Math.round(idle.ms)} ms)`
							);
					}
					slow.push(...problems);
				}
		expect(slow).toEqual([]);
		expect(posts).toBeGreaterThanOrEqual(14 * 4);
		// A check-in's only field is an optional note, so a small post of other names is a valid check-in
		// (the normal answer), and a check-in is an event: its row and, in the same transaction, its
		// checkin.created outbox row for each webhook URL. Every other action needs fields such a post does
		// not carry, and writes nothing. (The outbox's growth by those rows is what the fuzz with every
		// channel on first saw as "4 -> 6 webhook_deliveries" in this case.)
		const after = await portal.rowCounts();
		const checkIns = after.check_ins! - before.check_ins!;
		const webhookUrls = channels.env.WEBHOOK_URLS!.split(',').length;
		expect(after, 'a post of distinct names wrote').toEqual({
			...before,
			check_ins: before.check_ins! + checkIns,
			webhook_deliveries: before.webhook_deliveries! + checkIns * webhookUrls
		});
		expect(portal.crashes(), 'the server exited').toEqual([]);
	}, 120_000);
});
