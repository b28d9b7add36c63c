import type postgres from 'postgres';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import type { MailCatcher } from '../helpers/mail-catcher';
import { communityName, startNotifyingServer, type Member, type NotifyingServer } from '../helpers/notifying-server';
import type { PushService } from '../helpers/push-service';

// Every applicant in their language (docs/decisions/0043-translations-by-url-prefix.md; docs/notifications.md): notifications, pushes and
// e-mails are written in the recipient's members.locale, which their last signed-in page visit sets
// (an /api request leaves it), and link to that locale's pages. Through the built server, with a
// loopback push service and a local SMTP server; on the engine of tests/helpers/db.ts `engines` (Postgres with TEST_DATABASE_URL, else PGlite; TEST_ENGINES=all: both).
/** A display name with markup in it, as a hostile applicant might choose. */
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

describe.each(engines)('notifications in the recipient’s language on %s', (engine) => {
	let portal: NotifyingServer;
	let base: string;
	let push: PushService;
	let mail: MailCatcher;
	let sql: postgres.Sql | undefined;
	/** The community's name: every subject and every body says it. */
	let community: string;
	beforeAll(async () => {
		portal = await startNotifyingServer(engine, 'portal_notify_locale', { sql: true });
		({ url: base, push, mail, sql } = portal);
		community = await communityName(base);
	}, 200_000);
	afterAll(() => portal?.stop());

	const applicant = () => portal.member();
	/**
	 * The member's locale as an outside check sets it, with SQL, on a Postgres server; on PGlite (inside the
	 * server's process) by what sets it there: a signed-in page visit under the locale's prefix.
	 */
	async function setLocale(member: { address: string; cookie: string }, locale: string) {
		if (sql) await sql`update members set locale = ${locale} where address = ${member.address}`;
		else expect((await getPage(`${base}/${locale}/inbox`, member.cookie)).status).toBe(200);
	}
	const localeOf = async (address: string) =>
		sql ? ((await sql`select locale from members where address = ${address}`)[0]?.locale as string) : null;
	const subscribe = (path: string, cookie: string) => portal.subscribe(path, cookie);
	const apply = (member: Member, prefix = '', displayName = 'Lucía Idioma') =>
		portal.apply(member, { displayName, motivation: 'Avísame' }, prefix);
	const move = (applicationId: string, to: string, reason = '', prefix = '') =>
		portal.move(applicationId, to, reason, prefix);
	const pushedTo = async (path: string, count: number) =>
		(await push.until((p) => p.filter((x) => x.path === path).length >= count, 20_000))
			.filter((x) => x.path === path)
			.map((x) => x.payload);
	const mailTo = async (email: string, subject: string): Promise<ParsedMail> =>
		(await mail.until((m) => m.some((x) => x.subject === subject && JSON.stringify(x.to).includes(email)))).find(
			(x) => x.subject === subject && JSON.stringify(x.to).includes(email)
		)!;
	/** Adds and confirms an address from the inbox page in `locale`; the confirmation mail speaks it too. */
	async function confirmEmail(member: { cookie: string }, email: string, locale: string, subject: string) {
		expect((await postForm(`${base}/${locale}/inbox?/email`, { email }, { cookie: member.cookie })).status).toBe(303);
		const verification = await mailTo(email, subject);
		const link = new RegExp(`(http://\\S+/${locale}/inbox/verify\\?token=\\S+)`).exec(verification.text!)![1]!;
		expect(link.startsWith(`${base}/${locale}/inbox/verify?token=`)).toBe(true);
		expect((await getPage(link)).status).toBe(200);
		return verification;
	}

	it('a member whose locale is es is pushed and mailed in Spanish, with links under /es/', async () => {
		const lucia = await applicant();
		await setLocale(lucia, 'es');
		expect((await subscribe('/push/es', lucia.cookie)).status).toBe(201);
		const email = `lucia-${Date.now()}@example.test`;
		const verification = await confirmEmail(
			lucia,
			email,
			'es',
			`${community}: confirma tu dirección de correo electrónico`
		);
		expect(verification.text).toContain('El enlace funciona una sola vez, durante 24 horas.');

		const id = await apply(lucia, '/es');
		expect((await pushedTo('/push/es', 1))[0]).toEqual({
			title: 'Hemos recibido tu solicitud',
			body: 'Los revisores la examinarán; se te avisará cuando cambie algo.',
			url: '/es/apply',
			// About an application: its programme and round (docs/notifications.md).
			program: { slug: 'membership', name: expect.any(String) as string },
			round: { id: expect.any(Number) as number, name: 'Open' }
		});
		// The admin's own page is English: the applicant is still told in Spanish.
		expect((await move(id, 'approved')).status).toBe(303);
		expect((await pushedTo('/push/es', 2))[1]).toEqual({
			title: 'Tu solicitud ha sido aprobada',
			body: 'Tu solicitud ha sido aprobada. Te damos la bienvenida: los siguientes pasos están en la página de tu solicitud.',
			url: '/es/apply',
			// About an application: its programme and round (docs/notifications.md).
			program: { slug: 'membership', name: expect.any(String) as string },
			round: { id: expect.any(Number) as number, name: 'Open' }
		});
		// The submission's mail says nothing only the web page could mean ("you will be told here").
		const received = await mailTo(email, `${community}: Hemos recibido tu solicitud`);
		expect(received.text).toContain('Los revisores la examinarán; se te avisará cuando cambie algo.');
		expect(received.text).not.toContain('aquí');
		const approved = await mailTo(email, `${community}: Tu solicitud ha sido aprobada`);
		expect(approved.text!.replace(/[\u2068\u2069]/g, '')).toContain(
			`\n\nHola, Lucía Idioma:\n\nHay novedades sobre tu solicitud a ${community}.\n\n`
		);
		expect(approved.text).toContain(`\n\nVer tu solicitud: ${base}/es/apply\n`);
		expect(approved.text).toContain(`Dejar de recibir estos correos: ${base}/es/inbox/unsubscribe?token=`);
		expect(approved.html).toContain('<html lang="es" dir="ltr">');
		expect(approved.html).toMatch(new RegExp(`<a href="${base}/es/apply" style="[^"]*">Ver tu solicitud</a>`));
		// The inbox shows the same words.
		expect(textOf((await getPage(`${base}/es/inbox`, lucia.cookie)).body)).toContain('Tu solicitud ha sido aprobada');

		// RFC 8058 one-click, to the Spanish page, without a cookie or the portal's origin: stops the e-mails.
		const header = approved.headerLines.find((h) => h.key === 'list-unsubscribe')?.line ?? '';
		const unsubscribe = /<(http:\/\/[^>]+)>/.exec(header)![1]!;
		expect(unsubscribe.startsWith(`${base}/es/inbox/unsubscribe?token=`)).toBe(true);
		const oneClick = await fetch(unsubscribe, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: 'List-Unsubscribe=One-Click'
		});
		expect(oneClick.status).toBe(200);
		expect(textOf((await getPage(`${base}/es/inbox`, lucia.cookie)).body)).not.toContain(email);
	}, 60_000);

	it('a member whose locale is ar is pushed and mailed in Arabic, right to left, with links under /ar/', async () => {
		const amal = await applicant();
		await setLocale(amal, 'ar');
		expect((await subscribe('/push/ar', amal.cookie)).status).toBe(201);
		const email = `amal-${Date.now()}@example.test`;
		const verification = await confirmEmail(amal, email, 'ar', `${community}: أكّد عنوان بريدك الإلكتروني`);
		expect(verification.html).toContain('<html lang="ar" dir="rtl">');

		// The community asks its own question in English only (no Arabic label): optional, so the other tests' applications are unchanged.
		const form = await postForm(
			`${base}/admin/form?/save`,
			{
				questionCount: '1',
				'questions.0.key': 'languages',
				'questions.0.label': 'Which languages do you speak?',
				'questions.0.type': 'short_text'
			},
			{ cookie: portal.adminCookie }
		);
		expect(form.status).toBe(303);
		// Markup in a display name reaches the reader as text, never as HTML.
		const id = await apply(amal, '/ar', HOSTILE);
		expect((await pushedTo('/push/ar', 1))[0]).toMatchObject({ title: 'تلقّينا طلبك', url: '/ar/apply' });
		// A Spanish-speaking admin asks: the applicant reads it in Arabic, the reason, the question and the comment
		// as they were written, each set apart (FSI … PDI): three English pieces side by side (issue 61).
		const asking = await postForm(
			`${base}/es/admin/applications/${id}?/transition`,
			{ field: 'review', from: 'pending', to: 'needs_info', reason: 'Add a link.', 'ask.languages': 'Name them.' },
			{ cookie: portal.adminCookie }
		);
		expect(asking.status).toBe(303);
		const pieces = '\u2068Add a link.\u2069 \u2068Which languages do you speak?\u2069 «\u2068Name them.\u2069»';
		expect((await pushedTo('/push/ar', 2))[1]).toEqual({
			title: 'يطلب المراجعون مزيدًا من المعلومات',
			body: `يطلب المراجعون مزيدًا من المعلومات: ${pieces} عدّل طلبك في صفحته للرد عليهم.`,
			url: '/ar/apply',
			// About an application: its programme and round (docs/notifications.md).
			program: { slug: 'membership', name: expect.any(String) as string },
			round: { id: expect.any(Number) as number, name: 'Open' }
		});
		const asked = await mailTo(email, `${community}: يطلب المراجعون مزيدًا من المعلومات`);
		expect(asked.text).toContain(`اطّلع على طلبك: ${base}/ar/apply\n`);
		expect(asked.text).toContain(`إيقاف هذه الرسائل: ${base}/ar/inbox/unsubscribe?token=`);
		expect(asked.text).toContain(`مرحبًا \u2068${HOSTILE}\u2069،`);
		expect(asked.html).toMatch(/^<!doctype html><html lang="ar" dir="rtl">/);
		expect(asked.html).toContain(`>${community}</p>`);
		expect(asked.html).toContain(
			'مرحبًا <bdi>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</bdi>،'
		);
		expect(asked.html).not.toContain('<script');
		expect(asked.html).not.toContain('<img');
		// Each piece of user text in its own <bdi>: before, the three shared one run and the question's mark
		// moved to its start ("?Which languages do you speak"). The text part keeps the marks.
		expect(asked.text).toContain(pieces);
		expect(asked.html).toContain(
			'<bdi>Add a link.</bdi> <bdi>Which languages do you speak?</bdi> «<bdi>Name them.</bdi>»'
		);
		expect(asked.html).not.toMatch(/[\u2068\u2069]/);
		// The inbox shows the same body, each piece its own <bdi>, the marks themselves not written.
		// (The page's data, in its script, carries the body as stored.)
		const inbox = (await getPage(`${base}/ar/inbox`, amal.cookie)).body
			.replace(/<script[\s\S]*?<\/script>/g, '')
			.replace(/<!--[^>]*-->/g, '');
		expect(inbox).toContain('<bdi>Add a link.</bdi> <bdi>Which languages do you speak?</bdi> «<bdi>Name them.</bdi>»');
		expect(inbox).not.toMatch(/[\u2068\u2069]/);
	}, 60_000);

	it('a signed-in visit under /es/ (a page, its data, a form post) records es; an /api request does not change it; an English one records en', async () => {
		const noa = await applicant();
		expect(await localeOf(noa.address)).toBe(sql ? 'en' : null);
		expect((await subscribe('/push/visits', noa.cookie)).status).toBe(201);
		expect((await getPage(`${base}/es/inbox`, noa.cookie)).status).toBe(200);
		expect(await localeOf(noa.address)).toBe(sql ? 'es' : null);
		// The API is not localized: its requests (here all in the base locale's spelling) leave the locale as it is.
		for (const path of ['/api/notifications/unread', '/api/auth/me'])
			await (await fetch(base + path, { headers: { cookie: noa.cookie } })).arrayBuffer();
		expect(await localeOf(noa.address)).toBe(sql ? 'es' : null);
		// A form post is a visit too: the English /apply's POST records en before the notification is written.
		const id = await apply(noa);
		expect(await localeOf(noa.address)).toBe(sql ? 'en' : null);
		expect((await pushedTo('/push/visits', 1))[0]).toMatchObject({ title: 'We received your application' });
		// So is a page the browser reads as it navigates (its __data.json): back to Spanish.
		expect((await getPage(`${base}/es/inbox/__data.json`, noa.cookie)).status).toBe(200);
		expect(await localeOf(noa.address)).toBe(sql ? 'es' : null);
		expect((await getPage(`${base}/inbox`, noa.cookie)).status).toBe(200);
		expect(await localeOf(noa.address)).toBe(sql ? 'en' : null);
		await move(id, 'approved');
		expect((await pushedTo('/push/visits', 2))[1]).toEqual({
			title: 'Your application was approved',
			body: 'Your application was approved. Welcome: the next steps are on your application’s page.',
			url: '/apply',
			// About an application: its programme and round (docs/notifications.md).
			program: { slug: 'membership', name: expect.any(String) as string },
			round: { id: expect.any(Number) as number, name: 'Open' }
		});
	}, 60_000);
});
