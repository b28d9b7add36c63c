import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startChannels, subscribe, type Channels } from '../helpers/notifying-server';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { verified } from '../helpers/receiver';
import { signIn } from '../helpers/siwe';

// Decisions released together (issue 57, docs/application-form.md "Programmes and rounds") through the
// built server without JavaScript, with every channel on its real loopback receiver (webhooks, Web Push,
// SMTP): an approval in a `together` round reaches neither the applicant's page, inbox, push, e-mail nor
// the webhook receiver, while a needs_info in the same round does at once; then the round's release_at is
// set in the past while the server is stopped (PGlite) or running (Postgres), and each held message
// arrives exactly once. PGlite, or the Postgres server when TEST_DATABASE_URL is set.
const newAccount = () => privateKeyToAccount(generatePrivateKey());
const SLOW = 300_000;

let channels: Channels;
let portal: OwnDatabasePortal;
let base: string;
const admin = newAccount();

beforeAll(async () => {
	channels = await startChannels({ webhooks: ['working'] });
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address, ...channels.env });
	base = portal.url;
}, 240_000);
afterAll(async () => {
	await portal?.stop();
	await channels?.stop();
}, 60_000);

const secret = () => channels.env.WEBHOOK_SECRET!;
const events = () => channels.receiver!.received.map((r) => verified(secret(), r));
const transitionsOf = (id: string) =>
	events().filter((e) => e.type === 'application.transitioned' && e.data.applicationId === id);
const pushesTo = (path: string) => channels.push.pushed.filter((p) => p.path === path);
const mailsTo = (address: string) =>
	channels.mail.mails.filter((m) => JSON.stringify(m.to ?? '').includes(`${address}@example.test`));

async function applicationIdOf(address: string, adminCookie: string) {
	const page = await getPage(`${base}/admin?q=${address}`, adminCookie);
	return /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
}

describe('a round released together', () => {
	it(
		'holds an approval from the applicant and every channel until release_at, then each message goes once; needs_info goes at once',
		async () => {
			// The migration's one round, released together (as /admin/programs?/round sets it).
			await portal.query(`update rounds set release_mode = 'together'`);
			const [alice, bob] = [newAccount(), newAccount()];
			const aliceCookie = await signIn(base, alice);
			const bobCookie = await signIn(base, bob);
			const fields = { displayName: 'Alice Held', motivation: 'I review docs every week', contact: '@alice' };
			expect((await postForm(`${base}/apply`, fields, { cookie: aliceCookie })).status).toBe(303);
			expect(
				(await postForm(`${base}/apply`, { ...fields, displayName: 'Bob Asked' }, { cookie: bobCookie })).status
			).toBe(303);
			const aliceAddress = alice.address.toLowerCase();
			// Alice is told by push and by e-mail (a verified address, as the verification link leaves it).
			expect((await subscribe(base, channels.push, '/push/alice', aliceCookie)).status).toBe(201);
			await portal.query(
				`insert into member_emails (address, email, verified_at) values ('${aliceAddress}', '${aliceAddress}@example.test', now())`
			);
			const adminCookie = await signIn(base, admin);
			const aliceId = await applicationIdOf(aliceAddress, adminCookie);
			const bobId = await applicationIdOf(bob.address.toLowerCase(), adminCookie);
			await channels.receiver!.until(() => events().filter((e) => e.type === 'application.submitted').length >= 2);

			const move = (applicationId: string, to: string, reason = '') =>
				postForm(`${base}/admin?/transition`, { applicationId, field: 'review', to, reason }, { cookie: adminCookie });
			expect((await move(aliceId, 'approved')).status).toBe(303);
			expect((await move(bobId, 'needs_info', 'Link your docs, please.')).status).toBe(303);

			// needs_info is never held: Bob's webhook arrives, naming the programme and round.
			await channels.receiver!.until(() => transitionsOf(bobId).length === 1);
			expect(transitionsOf(bobId)[0]!.data).toMatchObject({
				to: 'needs_info',
				program: { slug: 'membership', name: 'Member portal' },
				round: { id: expect.any(Number) as number, name: 'Open' }
			});
			// The admin sees the decision, staged.
			const table = (await getPage(`${base}/admin?q=${aliceAddress}`, adminCookie)).body;
			expect(table).toContain('data-staged="Held until the round is released"');
			// Alice still reads "in review": her page, her inbox and its count.
			const apply = await getPage(`${base}/apply`, aliceCookie);
			expect(apply.body).toContain('Waiting for review');
			expect(apply.body).not.toMatch(/class="badge done"/);
			const unread = async () =>
				(
					(await (await fetch(`${base}/api/notifications/unread`, { headers: { cookie: aliceCookie } })).json()) as {
						unread: number;
					}
				).unread;
			expect(await unread()).toBe(1);
			expect(textOf((await getPage(`${base}/inbox`, aliceCookie)).body)).not.toContain('approved');
			// And nothing has left for her decision (the worker polls every second: give it a few).
			await new Promise((r) => setTimeout(r, 3_000));
			expect(transitionsOf(aliceId)).toEqual([]);
			expect(pushesTo('/push/alice')).toEqual([]);
			expect(mailsTo(aliceAddress)).toEqual([]);

			// The release time passes: on PGlite while the server is stopped (released at its start), on
			// Postgres while it runs (released at the next tick).
			await portal.query(`update rounds set release_at = now() - interval '1 minute'`);
			await channels.receiver!.until(() => transitionsOf(aliceId).length >= 1, 30_000);
			await channels.push.until(() => pushesTo('/push/alice').length >= 1, 30_000);
			await channels.mail.until(() => mailsTo(aliceAddress).length >= 1, 30_000);
			await new Promise((r) => setTimeout(r, 3_000));
			expect(transitionsOf(aliceId)).toHaveLength(1);
			expect(transitionsOf(aliceId)[0]!.data).toMatchObject({
				to: 'approved',
				program: { slug: 'membership' },
				round: { name: 'Open' }
			});
			expect(pushesTo('/push/alice')).toHaveLength(1);
			// Told once, as the round's release (decisions.released), not also as the approval (docs/decisions/0051).
			expect(pushesTo('/push/alice')[0]!.payload).toMatchObject({
				title: 'The decisions are out',
				program: { slug: 'membership', name: 'Member portal' },
				round: { name: 'Open' }
			});
			expect(mailsTo(aliceAddress)).toHaveLength(1);
			const released = await portal.query<{ released: boolean; by: string | null }>(
				`select released_at is not null as released, released_by as by from rounds`
			);
			expect(released).toEqual([{ released: true, by: null }]);
			const aliceAgain = await signIn(base, alice);
			expect((await getPage(`${base}/apply`, aliceAgain)).body).toMatch(/class="badge done"/);
			expect((await getPage(`${base}/admin?q=${aliceAddress}`, await signIn(base, admin))).body).not.toContain(
				'Held until the round is released'
			);
		},
		SLOW
	);

	it(
		'an admin sees what is staged and releases it: each message once, a second release is 409, a bad round 400, a member the unknown path',
		async () => {
			// A second round, released together by hand: the first closes as it opens.
			const [{ id: roundId } = { id: 0 }] = await portal.query<{ id: number }>(
				`with closed as (update rounds set closes_at = now() where name = 'Open' returning program_id)
				 insert into rounds (program_id, name, opens_at, release_mode) select program_id, 'Cohort 2', now(), 'together' from closed returning id`
			);
			const carol = newAccount();
			const carolCookie = await signIn(base, carol);
			const fields = { displayName: 'Carol Staged', motivation: 'I translate docs', contact: '@carol' };
			expect((await postForm(`${base}/apply`, fields, { cookie: carolCookie })).status).toBe(303);
			const adminCookie = await signIn(base, admin);
			const carolId = await applicationIdOf(carol.address.toLowerCase(), adminCookie);
			const moved = await postForm(
				`${base}/admin?/transition`,
				{ applicationId: carolId, field: 'review', to: 'rejected', reason: 'Not this round' },
				{ cookie: adminCookie }
			);
			expect(moved.status).toBe(303);
			const page = textOf((await getPage(`${base}/admin/programs`, adminCookie)).body);
			expect(page).toContain('Staged: 0 approved, 1 rejected. Applicants to be told: 1.');
			expect(page).toContain('Release now');

			const release = (round: string, cookie = adminCookie) =>
				postForm(`${base}/admin/programs?/release`, { round }, { cookie });
			for (const bad of ['', 'x', '0', '-1', '99999999999', String(roundId + 1000)])
				expect((await release(bad)).status, bad).toBe(400);
			expect((await release(String(roundId), carolCookie)).status).toBe(404);
			expect(transitionsOf(carolId)).toEqual([]);

			const done = await release(String(roundId));
			expect(done.status).toBe(303);
			expect(done.headers.get('location')).toBe('/admin/programs?done=released');
			expect((await release(String(roundId))).status).toBe(409);
			await channels.receiver!.until(() => transitionsOf(carolId).length >= 1, 30_000);
			await new Promise((r) => setTimeout(r, 2_000));
			expect(transitionsOf(carolId)).toHaveLength(1);
			expect(transitionsOf(carolId)[0]!.data).toMatchObject({ to: 'rejected', round: { id: roundId } });
			const after = textOf((await getPage(`${base}/admin/programs`, adminCookie)).body);
			expect(after).not.toContain('Release now');
			const [row] = await portal.query<{ by: string | null }>(
				`select released_by as by from rounds where id = ${roundId}`
			);
			expect(row?.by).toBe(admin.address.toLowerCase());
		},
		SLOW
	);

	it(
		'a round switched from together to immediate before its release lets what it held go once, released by that admin',
		async () => {
			const [{ id: roundId, opens } = { id: 0, opens: '' }] = await portal.query<{ id: number; opens: string }>(
				// Whole seconds: the edit posts the opening back in milliseconds, and Cohort 2 must end where it begins.
				`with closed as (update rounds set closes_at = date_trunc('second', now()) where closes_at is null returning program_id)
				 insert into rounds (program_id, name, opens_at, release_mode) select program_id, 'Cohort 3', date_trunc('second', now()), 'together' from closed
				 returning id, to_char(opens_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as opens`
			);
			const dan = newAccount();
			const danCookie = await signIn(base, dan);
			const fields = { displayName: 'Dan Switched', motivation: 'I run meetups', contact: '@dan' };
			expect((await postForm(`${base}/apply`, fields, { cookie: danCookie })).status).toBe(303);
			const adminCookie = await signIn(base, admin);
			const danId = await applicationIdOf(dan.address.toLowerCase(), adminCookie);
			const moved = await postForm(
				`${base}/admin?/transition`,
				{ applicationId: danId, field: 'review', to: 'approved', reason: '' },
				{ cookie: adminCookie }
			);
			expect(moved.status).toBe(303);
			expect(textOf((await getPage(`${base}/apply`, danCookie)).body)).not.toContain('Approved');

			const edited = await postForm(
				`${base}/admin/programs?/round`,
				{ program: 'membership', id: String(roundId), name: 'Cohort 3', opensAt: opens, releaseMode: 'immediate' },
				{ cookie: adminCookie }
			);
			expect(edited.status).toBe(303);
			expect(edited.headers.get('location')).toBe('/admin/programs?done=released');
			await channels.receiver!.until(() => transitionsOf(danId).length >= 1, 30_000);
			await new Promise((r) => setTimeout(r, 2_000));
			expect(transitionsOf(danId)).toHaveLength(1);
			expect(transitionsOf(danId)[0]!.data).toMatchObject({ to: 'approved', round: { id: roundId } });
			const [row] = await portal.query<{ mode: string; by: string | null; held: number }>(
				`select release_mode as mode, released_by as by,
				   (select count(*)::int from notifications where held_round_id = ${roundId}) as held from rounds where id = ${roundId}`
			);
			expect(row).toEqual({ mode: 'immediate', by: admin.address.toLowerCase(), held: 0 });
			// The portal has several rounds now: the applicant's history names the one Dan applied in.
			const mine = textOf((await getPage(`${base}/apply`, danCookie)).body);
			expect(mine).toContain('Approved');
			expect(mine).toMatch(/Submitted\s*·\s*Cohort 3/);
		},
		SLOW
	);

	it(
		'at the release each applicant is told once, in the decisions.released message the community saved in their language, placeholders filled',
		async () => {
			const [{ id: roundId } = { id: 0 }] = await portal.query<{ id: number }>(
				`with closed as (update rounds set closes_at = now() where closes_at is null returning program_id)
				 insert into rounds (program_id, name, opens_at, release_mode) select program_id, 'Cohorte 4', now(), 'together' from closed returning id`
			);
			const adminCookie = await signIn(base, admin);
			const saved = await postForm(
				`${base}/admin/messages?/save`,
				{
					event: 'decisions.released',
					locale: 'es',
					subject: '{program}: ya están las decisiones de {round}',
					body: 'Hola **{name}**:\n\n{reason}\n\nPuedes volver a solicitar desde el {reapplyAfter}.\n\n[Tu solicitud]({link})'
				},
				{ cookie: adminCookie }
			);
			expect(saved.status).toBe(303);
			const [eva, finn] = [newAccount(), newAccount()];
			const evaCookie = await signIn(base, eva);
			const finnCookie = await signIn(base, finn);
			// Eva reads Spanish (her last page), Finn English (no template in English: the portal's words).
			expect((await getPage(`${base}/es/inbox`, evaCookie)).status).toBe(200);
			const fields = { displayName: 'Eva Publicada', motivation: 'Traduzco la documentación', contact: '@eva' };
			expect((await postForm(`${base}/es/apply`, fields, { cookie: evaCookie })).status).toBe(303);
			expect(
				(await postForm(`${base}/apply`, { ...fields, displayName: 'Finn Released' }, { cookie: finnCookie })).status
			).toBe(303);
			// Told by push and by e-mail from now on (after the submission's own notice).
			const evaAddress = eva.address.toLowerCase();
			expect((await subscribe(base, channels.push, '/push/eva', evaCookie)).status).toBe(201);
			await portal.query(
				`insert into member_emails (address, email, verified_at) values ('${evaAddress}', '${evaAddress}@example.test', now())`
			);
			const evaId = await applicationIdOf(evaAddress, adminCookie);
			const finnId = await applicationIdOf(finn.address.toLowerCase(), adminCookie);
			const reject = await postForm(
				`${base}/admin?/transition`,
				{
					applicationId: evaId,
					field: 'review',
					to: 'rejected',
					reason: 'Faltan ejemplos',
					reapplyAfter: '2027-03-03'
				},
				{ cookie: adminCookie }
			);
			expect(reject.status).toBe(303);
			expect(
				(
					await postForm(
						`${base}/admin?/transition`,
						{ applicationId: finnId, field: 'review', to: 'approved', reason: '' },
						{ cookie: adminCookie }
					)
				).status
			).toBe(303);
			expect(
				(await postForm(`${base}/admin/programs?/release`, { round: String(roundId) }, { cookie: adminCookie })).status
			).toBe(303);

			await channels.push.until(() => pushesTo('/push/eva').length >= 1, 30_000);
			await channels.mail.until(() => mailsTo(evaAddress).length >= 1, 30_000);
			await new Promise((r) => setTimeout(r, 3_000));
			const isolated = '\u2068Member portal\u2069: ya están las decisiones de \u2068Cohorte 4\u2069';
			expect(pushesTo('/push/eva')).toHaveLength(1);
			expect((pushesTo('/push/eva')[0]!.payload as { title: string }).title).toBe(isolated);
			expect(mailsTo(evaAddress)).toHaveLength(1);
			const mail = mailsTo(evaAddress)[0]!;
			expect(mail.text).toContain('\u2068Faltan ejemplos\u2069');
			expect(mail.text).toContain('3 de marzo de 2027');
			// Her inbox: the submission and the release, no separate rejection notice.
			const inbox = textOf((await getPage(`${base}/es/inbox`, evaCookie)).body.replace(/<\/?bdi>/g, ''));
			expect(inbox).toMatch(/Member portal\s*: ya están las decisiones de Cohorte 4/);
			expect(inbox).toMatch(/Hola Eva Publicada\s*:/);
			expect(inbox).toContain('Faltan ejemplos');
			expect(inbox).not.toContain('Tu solicitud no ha sido aceptada');
			const [{ n } = { n: 0 }] = await portal.query<{ n: number }>(
				`select count(*)::int as n from notifications where application_id = '${evaId}' and kind = 'application.transitioned'`
			);
			expect(n).toBe(1);
			// Finn reads English, which has no saved template: the portal's own release message, once.
			const finnInbox = textOf((await getPage(`${base}/inbox`, finnCookie)).body);
			expect(finnInbox).toContain('The decisions are out');
			expect(finnInbox).toContain('Yours is on your application’s page.');
			expect(finnInbox).not.toContain('Your application was approved');
		},
		SLOW
	);
});
