import { describe, expect, it } from 'vitest';
import { mailOf, verificationMail } from './mail-text';
import { notificationText } from './notification-text';

const config = { origin: 'https://portal.example' };
const brand = { name: 'Acme DAO', accent: '#6d4ae8' };
const n = { title: 'Tu solicitud ha sido aprobada', body: 'Tu solicitud ha sido aprobada. <b>Hola</b>' };
/** Markup a community or an applicant might put in a name: it must reach the reader as text. */
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
/** The invisible marks that set a name apart from the sentence around it. */
const bare = (s: string) => s.replace(/[\u2068\u2069]/g, '');

describe('notification e-mails', () => {
	it('name the community in the subject and the body, in short paragraphs, text and HTML alike', () => {
		const mail = mailOf(config, brand, 'a@example.test', { title: 'T', body: 'B', displayName: 'Ana' }, 'tok');
		expect(mail.subject).toBe('Acme DAO: T');
		expect(bare(mail.text)).toBe(
			'Acme DAO\n\nHello Ana,\n\nThere is news about your application to Acme DAO.\n\nB\n\n' +
				'See your application: https://portal.example/apply\n\n-- \n' +
				'You receive this e-mail because you asked Acme DAO to tell you by e-mail when your application changes.\n\n' +
				'Stop these e-mails: https://portal.example/inbox/unsubscribe?token=tok\n'
		);
		expect(mail.html).toMatch(/^<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8">/);
		expect(mail.html).not.toMatch(/<table|<img|<script|class=/);
		expect(mail.html).toContain(
			'<p style="margin:0 0 16px">There is news about your application to <bdi>Acme DAO</bdi>.</p>'
		);
		expect(mail.html).toContain('<a href="https://portal.example/apply" style="');
		expect(mail.html).toContain('<a href="https://portal.example/inbox/unsubscribe?token=tok"');
		expect(mail.headers['List-Unsubscribe']).toBe('<https://portal.example/inbox/unsubscribe?token=tok>');
		expect(bare(mailOf(config, brand, 'a@example.test', { title: 'T', body: 'B' }, 'tok').text)).toContain(
			'\n\nHello,\n\n'
		);

		const verify = verificationMail(config, brand, 'a@example.test', 'v');
		expect(verify.subject).toBe('Acme DAO: confirm your e-mail address');
		expect(bare(verify.text)).toContain('when your application to Acme DAO changes');
		expect(verify.text).toContain('\n\nhttps://portal.example/inbox/verify?token=v\n\n-- \n');
		expect(verify.html).toContain('<a href="https://portal.example/inbox/verify?token=v"');
	});

	it('carry markup in a community’s or an applicant’s name as text, never as HTML', () => {
		const hostile = { name: HOSTILE, accent: '#000000;background:url(x)' };
		const mail = mailOf(config, hostile, 'a@example.test', { title: 'T', body: '<b>B</b>', displayName: HOSTILE }, 't');
		const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;';
		expect(mail.html).not.toContain('<script');
		expect(mail.html).not.toContain('<img');
		expect(mail.html).not.toContain('url(x)');
		expect(mail.html).toContain(`<title>${escaped}: T</title>`);
		expect(mail.html).toContain(`>${escaped}</p>`);
		expect(mail.html).toContain('&lt;b&gt;B&lt;/b&gt;');
		const verify = verificationMail(config, hostile, 'a@example.test', 'v');
		expect(verify.html).not.toContain('<script');
		expect(verify.html).not.toContain('<img');
	});

	it('in the recipient’s language and direction, link to that language’s pages', () => {
		const mail = mailOf(config, brand, 'a@example.test', n, 'tok', 'es');
		expect(mail.subject).toBe(`Acme DAO: ${n.title}`);
		expect(bare(mail.text)).toBe(
			`Acme DAO\n\nHola:\n\nHay novedades sobre tu solicitud a Acme DAO.\n\n${n.body}\n\n` +
				'Ver tu solicitud: https://portal.example/es/apply\n\n-- \n' +
				'Recibes este correo porque pediste a Acme DAO que te avisara por correo cuando cambiara tu solicitud.\n\n' +
				'Dejar de recibir estos correos: https://portal.example/es/inbox/unsubscribe?token=tok\n'
		);
		expect(mail.html).toContain('<html lang="es" dir="ltr">');
		expect(mail.html).toContain('&lt;b&gt;Hola&lt;/b&gt;');
		expect(mail.html).toMatch(/<a href="https:\/\/portal\.example\/es\/apply" style="[^"]*">Ver tu solicitud<\/a>/);
		expect(mail.headers['List-Unsubscribe']).toBe('<https://portal.example/es/inbox/unsubscribe?token=tok>');

		const ar = verificationMail(config, brand, 'a@example.test', 'v', 'ar');
		expect(ar.subject).toBe('Acme DAO: أكّد عنوان بريدك الإلكتروني');
		expect(ar.text).toContain('https://portal.example/ar/inbox/verify?token=v');
		expect(ar.html).toContain('<html lang="ar" dir="rtl">');
		expect(mailOf(config, brand, 'a@example.test', n, 't', 'ar').html).toContain('<html lang="ar" dir="rtl">');
		expect(verificationMail(config, brand, 'a@example.test', 'v', 'zh-Hans').html).toContain('确认此地址');
	});

	it('say nothing that only makes sense on the web page, and put no colon after a question', () => {
		for (const locale of ['en', 'es', 'pt-BR', 'ar', 'zh-Hans'] as const) {
			for (const kind of ['application.submitted', 'application.resubmitted'] as const) {
				const text = notificationText({ kind }, locale);
				const mail = mailOf(config, brand, 'a@example.test', text, 't', locale);
				expect(mail.text).not.toMatch(/ here |aquí|aqui| هنا |这里/);
			}
			const asked = notificationText(
				{
					kind: 'application.transitioned',
					field: 'review',
					to: 'needs_info',
					asks: [
						{ label: 'Which languages do you speak?', comment: 'Say more' },
						{ label: '¿Dónde vives？', comment: 'x' },
						{ label: 'ما لغتك؟', comment: 'y' },
						{ label: 'Website', comment: 'z' }
					]
				},
				locale
			);
			expect(bare(asked.body)).not.toMatch(/[?？؟]\s*[:：]/);
			expect(bare(asked.body)).toMatch(/Which languages do you speak\? ?[“«]Say more[”»]/);
			expect(bare(asked.body)).toMatch(/Website ?[:：]/);
		}
	});

	it('isolate user text of the other direction in the HTML part, its punctuation its own (issue 61)', () => {
		const asks = [
			{ label: 'Which languages do you speak?', comment: 'I like <docs>.' },
			{ label: 'Website', comment: 'Yours?' }
		];
		const change = {
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			reason: 'إجابات قصيرة',
			asks
		} as const;
		const ar = mailOf(config, brand, 'a@example.test', notificationText(change, 'ar'), 't', 'ar');
		expect(ar.html).toContain('<bdi>Which languages do you speak?</bdi> «<bdi>I like &lt;docs&gt;.</bdi>»');
		expect(ar.html).toContain('<bdi>Website</bdi>: «<bdi>Yours?</bdi>»');
		// An English reason: isolated whole, its own period with it.
		const reason = notificationText({ ...change, reason: 'Too short.', asks: [] }, 'ar');
		expect(mailOf(config, brand, 'a@example.test', reason, 't', 'ar').html).toContain(': <bdi>Too short.</bdi> ');
		// The community's name is isolated once, its marks turned into the <bdi>, not wrapped twice.
		expect(ar.html).toContain('<bdi>Acme DAO</bdi>');
		expect(ar.html).not.toMatch(/<bdi>[^<]*<bdi>|[\u2068\u2069]<\/bdi>|<bdi>[\u2068\u2069]/);
		// The text part is the same words, without markup, each piece between FSI and PDI.
		expect(ar.text).toContain('\u2068Which languages do you speak?\u2069 «\u2068I like <docs>.\u2069»');
		// An Arabic label in an English mail, the other way round; the English words stay as they were.
		const en = mailOf(
			config,
			brand,
			'a@example.test',
			notificationText({ ...change, reason: null, asks: [{ label: 'ما لغتك؟', comment: 'Say more' }] }, 'en'),
			't',
			'en'
		);
		expect(en.html).toContain('<bdi>ما لغتك؟</bdi> “<bdi>Say more</bdi>”');
		// Outside the pieces of user text and the community's name, the English words are not wrapped.
		expect(en.html.replace(/<bdi>(Say more|Acme DAO)<\/bdi>/g, '')).not.toMatch(/<bdi>[A-Za-z]/);
	});

	it('give each of two adjacent pieces of user text in the same direction its own <bdi> (issue 61)', () => {
		// An English reason, then an English question and its English comment, in an Arabic mail: before,
		// the three shared one run ("?Which languages do you speak" read right to left).
		const change = {
			kind: 'application.transitioned',
			field: 'review',
			to: 'needs_info',
			reason: 'Add a link.',
			asks: [{ label: 'Which languages do you speak?', comment: 'Name them.' }]
		} as const;
		const text = notificationText(change, 'ar');
		expect(text.body).toContain(
			'\u2068Add a link.\u2069 \u2068Which languages do you speak?\u2069 «\u2068Name them.\u2069»'
		);
		const mail = mailOf(config, brand, 'a@example.test', text, 't', 'ar');
		expect(mail.html).toContain(
			'<bdi>Add a link.</bdi> <bdi>Which languages do you speak?</bdi> «<bdi>Name them.</bdi>»'
		);
		expect(mail.html).not.toMatch(/[\u2068\u2069]<\/?bdi>|<bdi>[^<]*[\u2068\u2069]/);
	});
});
