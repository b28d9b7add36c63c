import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import type { MailCatcher } from '../helpers/mail-catcher';
import {
	signedInMember,
	communityName,
	startChannels,
	startNotifyingServer,
	subscribe as subscribeAt,
	type Channels,
	type Member,
	type NotifyingServer
} from '../helpers/notifying-server';
import { createServerDatabase } from '../helpers/postgres.js';
import type { PushService } from '../helpers/push-service';
import { startServer, type RunningServer } from '../helpers/server';

// What applicants are told (docs/notifications.md), through the built server: the inbox and its
// count, Web Push to a loopback push service that checks VAPID and decrypts, e-mail to a local SMTP
// server; on the engine of tests/helpers/db.ts `engines` (Postgres with TEST_DATABASE_URL, else PGlite; TEST_ENGINES=all: both).
describe.each(engines)('notifications on %s', (engine) => {
	let portal: NotifyingServer;
	let server: RunningServer;
	let base: string;
	let push: PushService;
	let mail: MailCatcher;
	let adminCookie: string;
	beforeAll(async () => {
		portal = await startNotifyingServer(engine, 'portal_notify');
		({ server, url: base, push, mail, adminCookie } = portal);
	}, 200_000);
	afterAll(() => portal?.stop());

	const json = (path: string, method: string, body: unknown, cookie?: string) =>
		fetch(base + path, {
			method,
			headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
			body: typeof body === 'string' ? body : JSON.stringify(body)
		});
	const subscribe = (path: string, cookie: string) => portal.subscribe(path, cookie);
	const applicant = async (name: string) => ({ ...(await portal.member()), name });
	const apply = (a: Member & { name: string }) => portal.apply(a, { displayName: a.name, motivation: 'Notify me' });
	const move = (applicationId: string, to: string, reason = '') => portal.move(applicationId, to, reason);
	const unread = async (cookie?: string) => {
		const r = await fetch(`${base}/api/notifications/unread`, { headers: cookie ? { cookie } : {} });
		return { status: r.status, body: (await r.json()) as { unread?: number; error?: { code: string } } };
	};

	it('a subscribed applicant is pushed every change, encrypted and VAPID-signed; the inbox and the count agree', async () => {
		const alice = await applicant('Alice Notify');
		expect((await subscribe('/push/alice', alice.cookie)).status).toBe(201);
		const id = await apply(alice);
		await push.until((p) => p.some((x) => x.path === '/push/alice'));
		expect(await move(id, 'needs_info', 'Please link your project.')).toMatchObject({ status: 303 });
		const got = (await push.until((p) => p.filter((x) => x.path === '/push/alice').length >= 2)).filter(
			(x) => x.path === '/push/alice'
		);
		expect(got.map((x) => x.payload)).toEqual([
			expect.objectContaining({ title: 'We received your application', url: '/apply' }),
			expect.objectContaining({
				title: 'The reviewers ask for more information',
				body: expect.stringContaining('Please link your project.') as unknown,
				url: '/apply'
			})
		]);
		expect(push.refused).toEqual([]);
		expect(got[0]!.topic).toMatch(/^n\d+$/);

		expect(await unread(alice.cookie)).toEqual({ status: 200, body: { unread: 2 } });
		// The header's count: the home page, drawn without scripts, carries it from the server; a page that
		// hydrates has the browser ask GET /api/notifications/unread as it mounts, so its server counts nothing.
		const headerOf = (html: string) => textOf(/<header[\s\S]*?<\/header>/.exec(html)?.[0] ?? '');
		expect(headerOf((await getPage(`${base}/`, alice.cookie)).body)).toMatch(/Inbox\s+2\s+unread/);
		const inbox = await getPage(`${base}/inbox`, alice.cookie);
		expect(inbox.status).toBe(200);
		expect(headerOf(inbox.body)).toMatch(/Inbox\s+(Sign|0x)/);
		expect(inbox.body).toMatch(/unread:null/);
		const text = textOf(inbox.body);
		expect(text.indexOf('The reviewers ask for more information')).toBeLessThan(
			text.indexOf('We received your application')
		);
		const ids = [...inbox.body.matchAll(/name="id" value="(\d+)"/g)].map((m) => m[1]!);
		expect(ids).toHaveLength(2);
		expect((await postForm(`${base}/inbox?/read`, { id: ids[0]! }, { cookie: alice.cookie })).status).toBe(303);
		expect((await unread(alice.cookie)).body.unread).toBe(1);
		expect((await postForm(`${base}/inbox?/read`, {}, { cookie: alice.cookie })).status).toBe(303);
		expect((await unread(alice.cookie)).body.unread).toBe(0);
	});

	it('nobody reads or marks another’s notifications; a visitor gets 401', async () => {
		const [bob, carol] = [await applicant('Bob Private'), await applicant('Carol Other')];
		await apply(bob);
		const bobsIds = [...(await getPage(`${base}/inbox`, bob.cookie)).body.matchAll(/name="id" value="(\d+)"/g)].map(
			(m) => m[1]!
		);
		expect(bobsIds).toHaveLength(1);
		expect(textOf((await getPage(`${base}/inbox`, carol.cookie)).body)).not.toContain('We received your application');
		expect((await postForm(`${base}/inbox?/read`, { id: bobsIds[0]! }, { cookie: carol.cookie })).status).toBe(303);
		expect((await unread(bob.cookie)).body.unread).toBe(1);
		expect(await unread()).toEqual({
			status: 401,
			body: { error: expect.objectContaining({ code: 'unauthenticated' }) as unknown }
		});
		expect((await getPage(`${base}/inbox`)).status).toBe(401);
		expect((await postForm(`${base}/inbox?/read`, { id: 'abc' }, { cookie: bob.cookie })).status).toBe(400);
	});

	it('refuses a subscription that is not one, or points anywhere but an allowed push service', async () => {
		const dave = await applicant('Dave Subscriber');
		const keys = push.subscription('/push/dave').keys;
		const refused = async (body: unknown) => {
			const r = await json('/api/push/subscriptions', 'POST', body, dave.cookie);
			expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
			expect(((await r.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
		};
		await refused({ endpoint: 'https://evil.example/push', keys });
		await refused({ endpoint: 'http://127.0.0.1:1/push', keys });
		await refused({ endpoint: `${push.url.replace('http:', 'https:')}/push`, keys });
		await refused({ endpoint: `${push.url}/push/x`, keys: { p256dh: 'short', auth: keys.auth } });
		await refused({ endpoint: `${push.url}/push/x` });
		await refused('not json');
		await refused({ endpoint: `${push.url}/push/${'x'.repeat(5000)}`, keys });
		expect((await json('/api/push/subscriptions', 'POST', { endpoint: `${push.url}/push/x`, keys })).status).toBe(401);
		expect((await json('/api/push/subscriptions', 'DELETE', { endpoint: `${push.url}/push/x` })).status).toBe(401);
	});

	it('a 404 or 410 removes the subscription; a 5xx is retried until it passes', async () => {
		const erin = await applicant('Erin Flaky');
		push.respond = (path, n) => (path === '/push/gone' ? 410 : path === '/push/flaky' && n === 0 ? 503 : 201);
		expect((await subscribe('/push/gone', erin.cookie)).status).toBe(201);
		expect((await subscribe('/push/flaky', erin.cookie)).status).toBe(201);
		const id = await apply(erin);
		await push.until((p) => p.some((x) => x.path === '/push/flaky'), 30_000);
		expect(push.hits.get('/push/flaky')).toBe(2);
		expect(push.hits.get('/push/gone')).toBe(1);
		await move(id, 'approved');
		await push.until((p) => p.filter((x) => x.path === '/push/flaky').length === 2);
		// The gone subscription was removed: the second change never went there.
		expect(push.hits.get('/push/gone')).toBe(1);
		// DELETE forgets this browser: the next change is not pushed.
		expect(
			(await json('/api/push/subscriptions', 'DELETE', { endpoint: `${push.url}/push/flaky` }, erin.cookie)).status
		).toBe(204);
	}, 40_000);

	it('e-mail: verified by a one-time link, then every change, with one-click unsubscribe; 5 links a day', async () => {
		const fay = await applicant('Fay Mail');
		const address = `fay-${Date.now()}@example.test`;
		expect((await postForm(`${base}/inbox?/email`, { email: address }, { cookie: fay.cookie })).location).toBe(
			'/inbox?done=email'
		);
		const [verification] = (
			await mail.until((m) => m.some((x) => x.to && JSON.stringify(x.to).includes(address)))
		).filter((m) => JSON.stringify(m.to).includes(address));
		const community = await communityName(base);
		expect(verification!.subject).toBe(`${community}: confirm your e-mail address`);
		const link = /(http:\/\/\S+\/inbox\/verify\?token=\S+)/.exec(verification!.text!)![1]!;
		expect(link.startsWith(base)).toBe(true);
		// Nothing is mailed before the address is confirmed.
		const id = await apply(fay);
		expect((await getPage(link)).status).toBe(200);
		expect((await getPage(link)).status).toBe(400);
		expect(textOf((await getPage(`${base}/inbox`, fay.cookie)).body)).toContain(`E-mails go to ${address}`);

		await move(id, 'approved');
		const mails = await mail.until((m) =>
			m.some(
				(x) => x.subject === `${community}: Your application was approved` && JSON.stringify(x.to).includes(address)
			)
		);
		expect(mails.filter((m) => JSON.stringify(m.to).includes(address)).map((m) => m.subject)).toEqual([
			`${community}: confirm your e-mail address`,
			`${community}: Your application was approved`
		]);
		const approved = mails.find((m) => m.subject === `${community}: Your application was approved`)!;
		// A designed mail: a text part in short paragraphs and an HTML part with the same words, both
		// naming the community and greeting the applicant by their display name.
		const paragraphs = approved.text!.replace(/[\u2068\u2069]/g, '').split('\n\n');
		expect(paragraphs.slice(0, 4)).toEqual([
			community,
			'Hello Fay Mail,',
			`There is news about your application to ${community}.`,
			'Your application was approved. Welcome: the next steps are on your application’s page.'
		]);
		expect(approved.text).toContain(`See your application: ${base}/apply\n`);
		expect(approved.text).toContain(`because you asked \u2068${community}\u2069 to tell you by e-mail`);
		expect(approved.html).toMatch(/^<!doctype html><html lang="en" dir="ltr">/);
		expect(approved.html).toContain(`>${community}</p>`);
		expect(approved.html).toMatch(new RegExp(`<a href="${base}/apply" style="[^"]*">See your application</a>`));
		const header = (name: string) => approved.headerLines.find((h) => h.key === name)?.line ?? '';
		expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
		const unsubscribe = /<(http:\/\/[^>]+)>/.exec(header('list-unsubscribe'))![1]!;
		expect(unsubscribe.startsWith(`${base}/inbox/unsubscribe?token=`)).toBe(true);
		// The GET shows a button and stops nothing (a mail scanner follows links).
		expect((await getPage(unsubscribe)).status).toBe(200);
		expect(textOf((await getPage(`${base}/inbox`, fay.cookie)).body)).toContain(`E-mails go to ${address}`);
		// RFC 8058: the mail provider posts from its own servers, without a cookie or the portal's origin.
		const oneClick = await fetch(unsubscribe, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: 'List-Unsubscribe=One-Click'
		});
		expect(oneClick.status).toBe(200);
		expect(textOf((await getPage(`${base}/inbox`, fay.cookie)).body)).not.toContain(address);

		// The address never reaches an admin's pages or exports.
		for (const path of [
			`/admin?q=${fay.account.address}`,
			`/admin/applications/${id}`,
			'/admin/applications.csv',
			'/admin/webhooks'
		])
			expect((await getPage(base + path, adminCookie)).body, path).not.toContain(address);
		expect(server.output()).not.toContain(address);

		// Verification sends are limited: 5 in 24 hours (one spent above).
		for (let i = 0; i < 4; i++)
			expect(
				(await postForm(`${base}/inbox?/email`, { email: `f${i}@example.test` }, { cookie: fay.cookie })).status
			).toBe(303);
		const over = await postForm(`${base}/inbox?/email`, { email: 'f9@example.test' }, { cookie: fay.cookie });
		expect(over.status).toBe(429);
		expect(
			(await postForm(`${base}/inbox?/email`, { email: 'not an address' }, { cookie: (await applicant('G')).cookie }))
				.status
		).toBe(400);
	}, 40_000);

	it('nothing about votes, comments or notes reaches an applicant', async () => {
		const hal = await applicant('Hal Quiet');
		const id = await apply(hal);
		await push.until(() => true);
		const before = textOf((await getPage(`${base}/inbox`, hal.cookie)).body);
		expect(
			(await postForm(`${base}/admin/applications/${id}?/note`, { body: 'SECRET-NOTE-TEXT' }, { cookie: adminCookie }))
				.status
		).toBe(303);
		const vote = await postForm(
			`${base}/review/${id}?/vote`,
			{ vote: 'approve', comment: 'SECRET-COMMENT-TEXT' },
			{ cookie: adminCookie }
		);
		expect([200, 303]).toContain(vote.status);
		await new Promise((r) => setTimeout(r, 1500));
		const after = textOf((await getPage(`${base}/inbox`, hal.cookie)).body);
		expect(after).toBe(before);
		expect((await unread(hal.cookie)).body.unread).toBe(1);
		const everything = JSON.stringify([push.pushed, mail.mails.map((m) => [m.subject, m.text])]);
		expect(everything).not.toMatch(/SECRET-|vote|score|comment|note/i);
	});
});

// docs/notifications.md "Idempotency": a process killed while a push is on the wire leaves its row
// leased; the next process sends it when the lease ends, once, with the same Topic.
describe.runIf(process.env.TEST_DATABASE_URL)('a process killed mid-delivery, on a Postgres server', () => {
	let channels: Channels;
	let drop: (() => Promise<void>) | undefined;
	const servers: RunningServer[] = [];
	afterAll(async () => {
		for (const s of servers) await s.stop();
		await channels?.stop();
		await drop?.();
	});

	it('the notification is pushed after a restart, exactly once, with the same Topic', async () => {
		channels = await startChannels();
		const { push } = channels;
		const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, {
			prefix: 'portal_notify_kill',
			migrate: true
		});
		drop = database.drop;
		const env = {
			...channels.env,
			DATABASE_URL: database.url,
			// A one-second timeout: the lease of a claimed row ends three seconds after the claim.
			WEBHOOK_TIMEOUT_SECONDS: '1'
		};
		const first = await startServer({ env });
		servers.push(first);
		const { cookie } = await signedInMember(first.url);
		expect((await subscribeAt(first.url, push, '/push/killed', cookie)).status).toBe(201);
		// The first request hangs: the process is killed while it waits.
		push.respond = (_, n) => (n === 0 ? 0 : 201);
		const applied = await postForm(
			`${first.url}/apply`,
			{ displayName: 'Kim Killed', motivation: 'Tell me' },
			{ cookie }
		);
		expect(applied.status).toBe(303);
		await expect.poll(() => push.hits.get('/push/killed') ?? 0, { timeout: 20_000 }).toBe(1);
		first.process.kill('SIGKILL');
		await first.exited;

		servers.push(await startServer({ env }));
		const [delivered] = await push.until((p) => p.length >= 1, 30_000);
		expect(delivered!.payload.title).toBe('We received your application');
		// A while longer: nothing is sent a second time.
		await new Promise((r) => setTimeout(r, 4000));
		expect(push.pushed).toHaveLength(1);
		expect(push.hits.get('/push/killed')).toBe(2);
		// The same Topic both times: a push service that got the first one replaces it rather than show two.
		expect(push.topics).toEqual([delivered!.topic, delivered!.topic]);
		expect(delivered!.topic).toMatch(/^n\d+$/);
		const sql = postgres(database.url, { max: 1, onnotice: () => {} });
		try {
			const rows = await sql`select status, attempts from webhook_deliveries where channel = 'push'`;
			expect(rows.map((r) => ({ ...r }))).toEqual([{ status: 'delivered', attempts: 2 }]);
		} finally {
			await sql.end();
		}
	}, 120_000);
});
