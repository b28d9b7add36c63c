import { createECDH } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { answer, getPage, postForm, textOf } from '../helpers/forms';
import type { MailCatcher } from '../helpers/mail-catcher';
import { startNotifyingServer, type Member, type NotifyingServer } from '../helpers/notifying-server';
import type { PushService } from '../helpers/push-service';

// Issue 54's smaller holes a signed-in member (or anyone) could use against another, through the built
// server: an unsubscribe link that told whether a wallet has an e-mail, a push endpoint taken over, a
// locale changed by another site. On the engine of tests/helpers/db.ts `engines`.
describe.each(engines)('members against each other on %s', (engine) => {
	let portal: NotifyingServer;
	let base: string;
	let push: PushService;
	let mail: MailCatcher;
	beforeAll(async () => {
		portal = await startNotifyingServer(engine, 'portal_holes');
		({ url: base, push, mail } = portal);
	}, 200_000);
	afterAll(() => portal?.stop());

	const member = () => portal.member();
	const apply = (m: Member, name: string) => portal.apply(m, { displayName: name, motivation: 'Hello' });
	const move = (applicationId: string, to: string, reason = '') => portal.move(applicationId, to, reason);

	it('a forged unsubscribe token is answered the same whether or not the wallet has an e-mail, and stops nothing', async () => {
		const withMail = await member();
		const address = `holder-${Date.now()}@example.test`;
		expect((await postForm(`${base}/inbox?/email`, { email: address }, { cookie: withMail.cookie })).status).toBe(303);
		const [verification] = (await mail.until((m) => m.some((x) => JSON.stringify(x.to).includes(address)))).filter(
			(m) => JSON.stringify(m.to).includes(address)
		);
		const link = /(http:\/\/\S+\/inbox\/verify\?token=\S+)/.exec(verification!.text!)![1]!;
		expect((await getPage(link)).status).toBe(200);
		const without = await member();

		// RFC 8058's one-click post, as a mail provider (or anyone) sends it: no cookie, no Origin.
		const oneClick = async (token: string) => {
			const r = await answer(
				await fetch(`${base}/inbox/unsubscribe?token=${encodeURIComponent(token)}`, {
					method: 'POST',
					headers: { 'content-type': 'application/x-www-form-urlencoded' },
					body: 'List-Unsubscribe=One-Click'
				})
			);
			return { status: r.status, text: textOf(r.body) };
		};
		const forged = (who: string) => `${who}.0.${'A'.repeat(24)}`;
		const answers = [await oneClick(forged(withMail.address)), await oneClick(forged(without.address))];
		expect(answers[0]).toEqual(answers[1]);
		expect(answers[0]!.status).toBe(200);
		// Nothing was stopped: the member still gets e-mails.
		expect(textOf((await getPage(`${base}/inbox`, withMail.cookie)).body)).toContain(`E-mails go to ${address}`);
		// A token that is not one at all is still a 400, for everyone alike.
		expect((await oneClick('not-a-token')).status).toBe(400);
	});

	it('an endpoint another member holds is refused (409) and stays theirs: they are still pushed, with their keys', async () => {
		const victim = await member();
		const attacker = await member();
		const sub = push.subscription('/push/victim');
		const post = (cookie: string, keys: { p256dh: string; auth: string }) =>
			fetch(`${base}/api/push/subscriptions`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', cookie },
				body: JSON.stringify({ endpoint: sub.endpoint, keys })
			});
		expect((await post(victim.cookie, sub.keys)).status).toBe(201);
		const own = createECDH('prime256v1');
		own.generateKeys();
		const attackerKeys = { p256dh: own.getPublicKey().toString('base64url'), auth: sub.keys.auth };
		const refused = await post(attacker.cookie, attackerKeys);
		expect(refused.status).toBe(409);
		expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('conflict');
		// The same browser subscribing again for its own member is fine.
		expect((await post(victim.cookie, sub.keys)).status).toBe(201);

		await apply(victim, 'Vic Victim');
		const [pushed] = await push.until((p) => p.some((x) => x.path === '/push/victim'));
		// Decrypted with the victim's own keys by the push service: it was encrypted for them.
		expect(pushed!.payload.title).toBe('We received your application');
		expect(push.refused).toEqual([]);
	});

	it("another site's links and posts do not change a member's locale; the member's own navigation does", async () => {
		const m = await member();
		const id = await apply(m, 'Lou Locale');
		// A top-level navigation from another site (a link, a redirect) and a cross-site post, under /es.
		const crossSite = await fetch(`${base}/es/inbox`, {
			redirect: 'manual',
			headers: { cookie: m.cookie, accept: 'text/html', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }
		});
		expect(crossSite.status).toBe(200);
		const crossPost = await postForm(
			`${base}/es/inbox?/read`,
			{},
			{ cookie: m.cookie, origin: 'https://evil.example' }
		);
		expect(crossPost.status).toBe(403);
		expect((await move(id, 'needs_info', 'Please link your project.')).status).toBe(303);
		const inbox = textOf((await getPage(`${base}/inbox`, m.cookie)).body);
		expect(inbox).toContain('The reviewers ask for more information');

		// The member's own navigation under /es (their link, Sec-Fetch-Site same-origin) records Spanish.
		const own = await fetch(`${base}/es/inbox`, {
			headers: { cookie: m.cookie, accept: 'text/html', 'sec-fetch-site': 'same-origin' }
		});
		expect(own.status).toBe(200);
		expect((await move(id, 'approved')).status).toBe(303);
		expect(textOf((await getPage(`${base}/es/inbox`, m.cookie)).body)).toContain('Tu solicitud ha sido aprobada');
	});
});
