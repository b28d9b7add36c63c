// The community's voice (issue 59, docs/notifications.md "In the community's words"): an admin
// writes an event's message per locale on /admin/messages; the inbox, push and the e-mail (text and HTML)
// use it; bad templates are refused naming the field; the later of two saves is told, two admins saving at
// once too; a reset restores the portal's words; an admin writes to the applicants a filter shows, each told
// once, however often the confirm is posted, 10,000 in one quick request. On the engines of
// tests/helpers/db.ts (TEST_ENGINES=all: PGlite and the Postgres server), with a real SMTP server.
import type postgres from 'postgres';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import type { MailCatcher } from '../helpers/mail-catcher';
import { communityName, startNotifyingServer, type Member, type NotifyingServer } from '../helpers/notifying-server';

describe.each(engines)('messages in the community’s voice on %s', (engine) => {
	let portal: NotifyingServer;
	let base: string;
	let mail: MailCatcher;
	let sql: postgres.Sql | undefined;
	let community: string;
	beforeAll(async () => {
		portal = await startNotifyingServer(engine, 'portal_messages', { sql: true });
		({ url: base, mail, sql } = portal);
		community = await communityName(base);
	}, 200_000);
	afterAll(() => portal?.stop());

	const save = (fields: Record<string, string>) =>
		postForm(`${base}/admin/messages?/save`, fields, { cookie: portal.adminCookie });
	const editor = (event: string, locale: string) =>
		getPage(`${base}/admin/messages?event=${event}&locale=${locale}`, portal.adminCookie);
	/** The editor's fields as the page holds them: the subject, the body and the version a save names. */
	async function fieldsOf(event: string, locale: string) {
		const page = await editor(event, locale);
		expect(page.status).toBe(200);
		const subject = /<input[^>]*name="subject"[^>]*value="([^"]*)"/.exec(page.body)?.[1] ?? null;
		const version = /name="version" value="([^"]*)"/.exec(page.body)?.[1] ?? null;
		const body = /<textarea[^>]*name="body"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.body)?.[1] ?? null;
		return { subject: decode(subject), version, body: decode(body), page };
	}
	const decode = (s: string | null) =>
		s === null
			? null
			: s
					.replace(/&lt;/g, '<')
					.replace(/&gt;/g, '>')
					.replace(/&quot;/g, '"')
					.replace(/&#39;/g, "'")
					.replace(/&amp;/g, '&');
	/** The one-time key a message's confirm step carries in its form. */
	const sendKeyOf = (body: string) => /name="sendKey" value="([0-9a-f-]{36})"/.exec(body)![1]!;
	/** How many times a member's inbox page shows `words` (a message's body). */
	const inboxCount = async (member: Member, words: string) =>
		textOf((await getPage(`${base}/inbox`, member.cookie)).body).split(words).length - 1;
	async function setLocale(member: Member, locale: string) {
		expect((await getPage(`${base}/${locale}/inbox`, member.cookie)).status).toBe(200);
	}
	const mailTo = async (email: string, subject: string): Promise<ParsedMail> =>
		(await mail.until((m) => m.some((x) => x.subject === subject && JSON.stringify(x.to).includes(email)))).find(
			(x) => x.subject === subject && JSON.stringify(x.to).includes(email)
		)!;
	async function confirmEmail(member: Member, email: string, locale: string) {
		expect(
			(await postForm(`${base}${locale ? `/${locale}` : ''}/inbox?/email`, { email }, { cookie: member.cookie })).status
		).toBe(303);
		const verification = await mail.until((m) => m.some((x) => JSON.stringify(x.to).includes(email)));
		const text = verification.find((x) => JSON.stringify(x.to).includes(email))!.text!;
		const link = new RegExp(`(http://\\S+/inbox/verify\\?token=\\S+)`).exec(text)![1]!;
		expect((await getPage(link)).status).toBe(200);
	}

	it('a template saved in Spanish is what an applicant whose locale is es reads in /es/inbox and in the e-mail', async () => {
		const start = await fieldsOf('review.approved', 'es');
		expect(start.subject).toBe('Tu solicitud ha sido aprobada');
		expect(start.version).toBe('');
		const saved = await save({
			event: 'review.approved',
			locale: 'es',
			version: '',
			subject: '¡Bienvenida a {community}, {name}!',
			body: 'Hola **{name}**, ya eres parte de {program}.\n\n- Lee [la guía](https://example.org/guia)\n- Abre [tu solicitud]({link})\n\n{reason}'
		});
		expect(saved.status).toBe(303);
		expect(saved.location).toContain('/admin/messages?event=review.approved&locale=es&done=saved');

		const lucia = await portal.member();
		await setLocale(lucia, 'es');
		const email = `lucia-${Date.now()}@example.test`;
		await confirmEmail(lucia, email, 'es');
		const id = await portal.apply(lucia, { displayName: 'Lucía Voz', motivation: 'Quiero participar' }, '/es');
		expect((await portal.move(id, 'approved', 'Respuestas claras')).status).toBe(303);

		const inbox = await getPage(`${base}/es/inbox`, lucia.cookie);
		// The name and the reason are user text: each its own <bdi> (issue 61).
		const shown = inbox.body.replace(/<!--[^>]*-->/g, '');
		const text = textOf(shown.replace(/<\/?bdi>/g, ''));
		expect(text).toContain(`¡Bienvenida a ${community}, Lucía Voz!`);
		expect(shown).toContain('<strong><bdi>Lucía Voz</bdi></strong>');
		expect(shown).toMatch(/<a href="https:\/\/example\.org\/guia"[^>]*>la guía<\/a>/);
		expect(shown).toMatch(/<a href="\/es\/apply"[^>]*>tu solicitud<\/a>/);
		expect(text).toContain('Respuestas claras');

		const approved = await mailTo(email, `${community}: ¡Bienvenida a ${community}, \u2068Lucía Voz\u2069!`);
		// multipart/alternative: a text part and an HTML part, in the community's name.
		expect(approved.text).toContain('Hola \u2068Lucía Voz\u2069, ya eres parte de');
		expect(approved.text).toContain('• Lee la guía (https://example.org/guia)');
		expect(approved.text).toContain(`• Abre tu solicitud (${base}/es/apply)`);
		expect(approved.html).toContain('<strong><bdi>Lucía Voz</bdi></strong>');
		expect(approved.html).toMatch(
			/<li>Lee <a href="https:\/\/example\.org\/guia" style="color:#[0-9a-f]{6}">la guía<\/a><\/li>/i
		);
		expect(approved.html).toContain(`<a href="${base}/es/apply"`);
		expect(approved.html).toContain('<html lang="es" dir="ltr">');
		expect(
			String(approved.headers.get('content-type') && (approved.headers.get('content-type') as { value: string }).value)
		).toBe('multipart/alternative');

		// An applicant reading English still gets the portal's English words: the template is the Spanish one only.
		const ann = await portal.member();
		const annId = await portal.apply(ann, { displayName: 'Ann English', motivation: 'Hello' });
		expect((await portal.move(annId, 'approved')).status).toBe(303);
		expect(textOf((await getPage(`${base}/inbox`, ann.cookie)).body)).toContain('Your application was approved');
	});

	it('an unknown placeholder, a bad link or an unknown event is a 400 naming it, and nothing is written', async () => {
		const before = await fieldsOf('review.rejected', 'ar');
		const unknown = await save({
			event: 'review.rejected',
			locale: 'ar',
			version: '',
			subject: 'x {nombre}',
			body: 'y'
		});
		expect(unknown.status).toBe(400);
		expect(textOf(unknown.body)).toContain('{nombre}');
		const inBody = await save({ event: 'review.rejected', locale: 'ar', subject: 'x', body: 'Hi {who}' });
		expect(inBody.status).toBe(400);
		expect(textOf(inBody.body)).toContain('{who}');
		const link = await save({ event: 'review.rejected', locale: 'ar', subject: 'x', body: '[x](javascript:alert(1))' });
		expect(link.status).toBe(400);
		expect(textOf(link.body)).toContain('javascript:alert');
		expect((await save({ event: 'review.nope', locale: 'ar', subject: 'x', body: 'y' })).status).toBe(400);
		expect((await save({ event: 'review.rejected', locale: 'xx', subject: 'x', body: 'y' })).status).toBe(400);
		expect((await save({ event: 'review.rejected', locale: 'ar', subject: '', body: 'y' })).status).toBe(400);
		const after = await fieldsOf('review.rejected', 'ar');
		expect(after.subject).toBe(before.subject);
		expect(after.version).toBe('');
		if (sql)
			expect(await sql`select 1 from message_templates where event = 'review.rejected' and locale = 'ar'`).toHaveLength(
				0
			);
	});

	it('markup or a script in a template is shown as text, in the inbox, the e-mail and the preview', async () => {
		const saved = await save({
			event: 'application.submitted',
			locale: 'en',
			version: '',
			subject: '<img src=x onerror=alert(1)> received',
			body: '<script>alert(1)</script> <b>not bold</b> [x](https://example.org/"onmouseover="alert(1))'
		});
		expect(saved.status).toBe(303);
		const bob = await portal.member();
		const email = `bob-${Date.now()}@example.test`;
		await confirmEmail(bob, email, '');
		await portal.apply(bob, { displayName: 'Bob Tags', motivation: 'Hi' });
		// Svelte writes text with `<` and `&` escaped: the page reads the characters, no element is made.
		const inbox = (await getPage(`${base}/inbox`, bob.cookie)).body;
		expect(textOf(inbox)).toContain('<script>alert(1)</script> <b>not bold</b>');
		expect(textOf(inbox)).toContain('<img src=x onerror=alert(1)> received');
		expect(inbox).not.toMatch(/<script>alert|<b>not bold|<img src=x/);
		const received = await mailTo(email, `${community}: <img src=x onerror=alert(1)> received`);
		expect(received.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
		expect(received.html).not.toContain('<script>');
		expect(received.html).not.toContain('<b>not bold');
		expect(received.html).not.toContain('"onmouseover');
		const preview = (await editor('application.submitted', 'en')).body;
		expect(textOf(preview)).toContain('<script>alert(1)</script>');
		expect(preview).not.toMatch(/<script>alert|<b>not bold/);
		// Back to the portal's words for the other tests.
		expect(
			(
				await postForm(
					`${base}/admin/messages?/reset`,
					{ event: 'application.submitted', locale: 'en' },
					{ cookie: portal.adminCookie }
				)
			).status
		).toBe(303);
	});

	it('two admins save the same template: the later one is told (409) and nothing is overwritten; reset restores the default', async () => {
		const opened = await fieldsOf('review.needs_info', 'pt-BR');
		const portalWords = opened.subject;
		expect(portalWords).toBeTruthy();
		// Both opened the default; the first save wins.
		const first = await save({
			event: 'review.needs_info',
			locale: 'pt-BR',
			version: opened.version!,
			subject: 'Primeiro',
			body: 'Um'
		});
		expect(first.status).toBe(303);
		const second = await save({
			event: 'review.needs_info',
			locale: 'pt-BR',
			version: opened.version!,
			subject: 'Segundo',
			body: 'Dois'
		});
		expect(second.status).toBe(409);
		const now = await fieldsOf('review.needs_info', 'pt-BR');
		expect(now.subject).toBe('Primeiro');
		expect(now.version).not.toBe('');
		// An edit of the saved one names its version; one naming the version before is told again.
		const third = await save({
			event: 'review.needs_info',
			locale: 'pt-BR',
			version: now.version!,
			subject: 'Terceiro',
			body: 'Três'
		});
		expect(third.status).toBe(303);
		expect(
			(await save({ event: 'review.needs_info', locale: 'pt-BR', version: now.version!, subject: 'Quarto', body: 'x' }))
				.status
		).toBe(409);
		expect((await fieldsOf('review.needs_info', 'pt-BR')).subject).toBe('Terceiro');

		const reset = await postForm(
			`${base}/admin/messages?/reset`,
			{ event: 'review.needs_info', locale: 'pt-BR' },
			{ cookie: portal.adminCookie }
		);
		expect(reset.status).toBe(303);
		const back = await fieldsOf('review.needs_info', 'pt-BR');
		expect(back.subject).toBe(portalWords);
		expect(back.body).toBe(opened.body);
		expect(back.version).toBe('');
		expect(
			(await postForm(`${base}/admin/messages?/reset`, { event: 'x', locale: 'pt-BR' }, { cookie: portal.adminCookie }))
				.status
		).toBe(400);
	});

	it('two admins save the same template at once: one is saved, the other is told (409) with their words kept, nothing overwritten', async () => {
		// A second admin of every programme, added on the team page by the owner; signed in once.
		const other = await portal.member();
		expect(
			(
				await postForm(
					`${base}/admin/team?/add`,
					{ address: other.address, role: 'admin', program: '' },
					{ cookie: portal.adminCookie }
				)
			).status
		).toBe(303);
		// Both open the editor of the same message (the portal's words: no version yet), then save together.
		const opened = await fieldsOf('review.rejected', 'es');
		const asOther = await getPage(`${base}/admin/messages?event=review.rejected&locale=es`, other.cookie);
		expect(asOther.status).toBe(200);
		const words = (who: string) => ({
			event: 'review.rejected',
			locale: 'es',
			version: opened.version!,
			subject: `Asunto de ${who}`,
			body: `Cuerpo de ${who}`
		});
		const [mine, theirs] = await Promise.all([
			postForm(`${base}/admin/messages?/save`, words('Ana'), { cookie: portal.adminCookie }),
			postForm(`${base}/admin/messages?/save`, words('Beto'), { cookie: other.cookie })
		]);
		expect([mine.status, theirs.status].sort()).toEqual([303, 409]);
		const [won, told] = mine.status === 303 ? ['Ana', theirs] : ['Beto', mine];
		// The later one is told why, and what they typed is still in the editor to copy.
		expect(textOf(told.body)).toContain('Someone saved this message after you opened it; nothing was overwritten.');
		expect(told.body).toContain(`Asunto de ${won === 'Ana' ? 'Beto' : 'Ana'}`);
		const now = await fieldsOf('review.rejected', 'es');
		expect(now.subject).toBe(`Asunto de ${won}`);
		if (sql) {
			const [row] =
				await sql`select updated_by from message_templates where event = 'review.rejected' and locale = 'es'`;
			expect(row!.updated_by).toBe(won === 'Ana' ? portal.admin.address.toLowerCase() : other.address);
		}
		// The one told saves again over what is there now (its version) and is saved.
		const again = await postForm(
			`${base}/admin/messages?/save`,
			{ ...words(won === 'Ana' ? 'Beto' : 'Ana'), version: now.version! },
			{ cookie: told === mine ? portal.adminCookie : other.cookie }
		);
		expect(again.status).toBe(303);
	});

	it('a message to the applications a filter shows reaches each applicant once, after a confirm step that says how many', async () => {
		const tag = `Filtro${Date.now().toString(36)}`;
		const members = [await portal.member(), await portal.member(), await portal.member()];
		for (const [i, member] of members.entries())
			await portal.apply(member, { displayName: `${tag} ${i}`, motivation: 'Hi' });
		const email = `cara-${Date.now()}@example.test`;
		await confirmEmail(members[0]!, email, '');
		const outsider = await portal.member();
		await portal.apply(outsider, { displayName: 'Someone Else', motivation: 'Hi' });

		const fields = { q: tag, subject: 'News for {name}', body: 'Hello **{name}** of {community}: see {link}.' };
		const asked = await postForm(`${base}/admin?/message`, fields, { cookie: portal.adminCookie });
		expect(asked.status).toBe(200);
		expect(textOf(asked.body)).toContain('Applicants who will be told: 3');
		// A key that is not the confirm step's is a 400 naming it, nothing sent.
		const badKey = await postForm(
			`${base}/admin?/message`,
			{ ...fields, confirm: 'yes', sendKey: 'not-a-key' },
			{ cookie: portal.adminCookie }
		);
		expect(badKey.status).toBe(400);
		expect(textOf(badKey.body)).toContain('Send this message from its confirm step');
		const sent = await postForm(
			`${base}/admin?/message`,
			{ ...fields, confirm: 'yes', sendKey: sendKeyOf(asked.body) },
			{ cookie: portal.adminCookie }
		);
		expect(sent.status).toBe(303);
		for (const [i, member] of members.entries()) {
			// The page's HTML without Svelte's markers: the message's bold name and its link to the page.
			const inbox = (await getPage(`${base}/inbox`, member.cookie)).body.replace(/<!--[\s\S]*?-->/g, '');
			const words = `Hello <strong>${tag} ${i}</strong> of ${community}: see <a href="/apply">/apply</a>.`;
			expect(inbox.split(words).length - 1).toBe(1);
		}
		expect(textOf((await getPage(`${base}/inbox`, outsider.cookie)).body)).not.toContain('News for');
		const received = await mailTo(email, `${community}: News for ${tag} 0`);
		expect(received.html).toContain(`<strong>${tag} 0</strong>`);
		// Sent once: a while later there is still one such mail.
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(mail.mails.filter((x) => x.subject === `${community}: News for ${tag} 0`)).toHaveLength(1);
		// Recorded in each application's history.
		const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(
			(await getPage(`${base}/admin?q=${members[1]!.address}`, portal.adminCookie)).body
		)![1]!;
		expect(textOf((await getPage(`${base}/admin/applications/${id}`, portal.adminCookie)).body)).toContain(
			'Message “News for {name}” sent by'
		);
		// Bad input: a placeholder a message has no value for, an id that is none; nothing sent.
		const bad = await postForm(
			`${base}/admin?/message`,
			{ ...fields, body: '{reason}', confirm: 'yes' },
			{ cookie: portal.adminCookie }
		);
		expect(bad.status).toBe(400);
		expect(textOf(bad.body)).toContain('{reason}');
		const ids = await postForm(
			`${base}/admin?/message`,
			{ ...fields, applicationIds: 'nope', confirm: 'yes' },
			{ cookie: portal.adminCookie }
		);
		expect(ids.status).toBe(400);
		const none = await postForm(
			`${base}/admin?/message`,
			{ ...fields, q: 'no-such-applicant-xyz' },
			{ cookie: portal.adminCookie }
		);
		expect(none.status).toBe(400);
		if (sql) expect((await sql`select count(*)::int as n from applicant_messages`)[0]!.n).toBe(1);
	});
	it("a confirm with the contract's fields alone (no key) is sent", async () => {
		const tag = `Keyless${Date.now().toString(36)}`;
		const member = await portal.member();
		await portal.apply(member, { displayName: tag, motivation: 'Hi' });
		const fields = { q: tag, subject: `Plain ${tag}`, body: 'Hello {name}.', confirm: 'yes' };
		const sent = await postForm(`${base}/admin?/message`, fields, { cookie: portal.adminCookie });
		expect(sent.status).toBe(303);
		expect(new URL(sent.location!, base).searchParams.get('done')).toBe('message');
		expect(await inboxCount(member, `Hello ${tag}.`)).toBe(1);
	});
	it('the same confirm posted twice (a double click, a retried request, back and submit again) tells each applicant once', async () => {
		const tag = `Twice${Date.now().toString(36)}`;
		const members = [await portal.member(), await portal.member()];
		for (const [i, member] of members.entries())
			await portal.apply(member, { displayName: `${tag} ${i}`, motivation: 'Hi' });
		const email = `twice-${Date.now()}@example.test`;
		await confirmEmail(members[0]!, email, '');
		const subject = `Once only ${tag}`;
		const fields = { q: tag, subject, body: 'Hello {name}.' };
		const asked = await postForm(`${base}/admin?/message`, fields, { cookie: portal.adminCookie });
		expect(textOf(asked.body)).toContain('Applicants who will be told: 2');
		const confirm = { ...fields, confirm: 'yes', sendKey: sendKeyOf(asked.body) };
		const post = () => postForm(`${base}/admin?/message`, confirm, { cookie: portal.adminCookie });
		// A double click: both at once; then the same form again, later.
		const answers = [...(await Promise.all([post(), post()])), await post()];
		for (const a of answers) expect(a.status).toBe(303);
		const done = answers.map((a) => new URL(a.location!, base).searchParams);
		expect(done.map((q) => q.get('count'))).toEqual(['2', '2', '2']);
		expect(done.map((q) => q.get('done')).sort()).toEqual(['message', 'message-again', 'message-again']);
		// The admin is told that it was sent already, and nothing more was.
		const again = answers.find((a) => a.location!.includes('done=message-again'))!;
		expect(textOf((await getPage(new URL(again.location!, base).href, portal.adminCookie)).body)).toContain(
			'Already sent: this message was queued for 2 applications the first time it was confirmed'
		);
		for (const [i, member] of members.entries()) expect(await inboxCount(member, `Hello ${tag} ${i}.`)).toBe(1);
		await mailTo(email, `${community}: ${subject}`);
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(mail.mails.filter((x) => x.subject === `${community}: ${subject}`)).toHaveLength(1);
		if (sql) {
			const [row] = await sql`select count(*)::int as messages, sum(recipients)::int as recipients
				from applicant_messages where subject = ${subject}`;
			expect(row).toEqual({ messages: 1, recipients: 2 });
			const [n] = await sql`select count(*)::int as n from notifications where title = ${subject}`;
			expect(n!.n).toBe(2);
		}
		// A new confirm step hands out a new key: writing the same words again on purpose sends them again.
		const second = await postForm(`${base}/admin?/message`, fields, { cookie: portal.adminCookie });
		expect(sendKeyOf(second.body)).not.toBe(confirm.sendKey);
	});

	it.runIf(engine === 'postgres')(
		'a message to 10,000 applicants is queued in one request that returns at once, once each even when posted twice',
		async () => {
			const tag = `Ten${Date.now().toString(36)}`;
			// 10,000 members, each with an application named by the tag (programme and round by the trigger).
			await sql!`with m as (
				insert into members (address)
				select '0x' || lpad(to_hex(i), 32, '0') || ${Date.now().toString(16).padStart(8, '0').slice(-8)}
				from generate_series(1, 10000) i returning address)
			insert into applications (applicant_address, display_name, motivation)
			select address, ${tag} || ' ' || address, 'Hi' from m`;
			const fields = { q: tag, subject: `Ten thousand ${tag}`, body: 'Hello {name} of {program}.' };
			const asked = await postForm(`${base}/admin?/message`, fields, { cookie: portal.adminCookie });
			expect(textOf(asked.body)).toContain('Applicants who will be told: 10000');
			const confirm = { ...fields, confirm: 'yes', sendKey: sendKeyOf(asked.body) };
			const started = performance.now();
			const sent = await postForm(`${base}/admin?/message`, confirm, { cookie: portal.adminCookie });
			const took = performance.now() - started;
			expect(sent.status).toBe(303);
			expect(sent.location).toContain('done=message&count=10000');
			console.log(`a message to 10,000 applicants: the request took ${Math.round(took)} ms`);
			// One statement: a few seconds at most on a busy machine (about 1 s measured), not a loop.
			expect(took).toBeLessThan(10_000);
			const again = await postForm(`${base}/admin?/message`, confirm, { cookie: portal.adminCookie });
			expect(again.location).toContain('done=message-again&count=10000');
			const [n] = await sql!`select count(*)::int as n, count(distinct recipient_address)::int as people
				from notifications where title = ${fields.subject}`;
			expect(n).toEqual({ n: 10000, people: 10000 });
		},
		120_000
	);
	it('the application.withdrawn template saved in Arabic is the confirmation an applicant reading ar gets when withdrawing', async () => {
		const saved = await save({
			event: 'application.withdrawn',
			locale: 'ar',
			subject: 'سحبت طلبك إلى {program}',
			body: 'شكرًا يا **{name}**. [صفحتك]({link})'
		});
		expect(saved.status).toBe(303);
		const hala = await portal.member();
		await setLocale(hala, 'ar');
		await portal.apply(hala, { displayName: 'Hala Withdraws', motivation: 'Later' }, '/ar');
		const withdrawn = await postForm(`${base}/ar/apply?/withdraw`, { reason: '' }, { cookie: hala.cookie });
		expect(withdrawn.status).toBe(303);
		const inbox = (await getPage(`${base}/ar/inbox`, hala.cookie)).body.replace(/<!--[^>]*-->/g, '');
		const text = textOf(inbox.replace(/<\/?bdi>/g, ''));
		expect(text).toContain('سحبت طلبك إلى');
		expect(text).toContain('شكرًا يا Hala Withdraws');
		expect(inbox).toMatch(/<a href="\/ar\/apply"[^>]*>صفحتك<\/a>/);
		expect(text).not.toContain('تم سحب طلبك');
	});

	// Last: it changes the community's name every test above reads.
	it('the look saved on /admin/settings names the community in the inbox and the e-mails, in the reader’s language and the saved colour', async () => {
		const saved = await postForm(
			`${base}/admin/settings?/save`,
			{ name: 'Atlas Guild', 'name.es': 'Gremio Atlas', accent: '#0052ff' },
			{ cookie: portal.adminCookie }
		);
		expect(saved.status).toBe(303);
		// Every process reads the saved look again within a second (SETTINGS_CACHE_MS).
		await new Promise((r) => setTimeout(r, 1_100));

		const sofia = await portal.member();
		await setLocale(sofia, 'es');
		const email = `sofia-${Date.now()}@example.test`;
		await confirmEmail(sofia, email, 'es');
		const id = await portal.apply(sofia, { displayName: 'Sofía Voz', motivation: 'Quiero participar' }, '/es');
		expect((await portal.move(id, 'approved')).status).toBe(303);
		// The Spanish template of the first test, its {community} the Spanish name; the subject names it too.
		const approved = await mailTo(email, 'Gremio Atlas: ¡Bienvenida a Gremio Atlas, \u2068Sofía Voz\u2069!');
		expect(approved.text).toContain('Gremio Atlas');
		expect(approved.html).toContain('Gremio Atlas');
		expect(approved.html).toContain('#0052ff');
		expect(textOf((await getPage(`${base}/es/inbox`, sofia.cookie)).body)).toContain('¡Bienvenida a Gremio Atlas,');

		// An English reader: the base name.
		const ann = await portal.member();
		const english = `ann-${Date.now()}@example.test`;
		await confirmEmail(ann, english, '');
		const annId = await portal.apply(ann, { displayName: 'Ann Look', motivation: 'Hello' });
		expect((await portal.move(annId, 'approved')).status).toBe(303);
		const mailed = await mail.until((m) =>
			m.some((x) => JSON.stringify(x.to).includes(english) && x.subject?.startsWith('Atlas Guild: '))
		);
		expect(mailed.length).toBeGreaterThan(0);
	});
});
