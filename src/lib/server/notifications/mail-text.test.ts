import { describe, expect, it } from 'vitest';
import { mailOf, verificationMail } from './mail-text';

const config = { origin: 'https://portal.example' };
const n = { title: 'Tu solicitud ha sido aprobada', body: 'Tu solicitud ha sido aprobada. <b>Hola</b>' };

describe('notification e-mails', () => {
	it('in English, link to the pages without a prefix, as they always did', () => {
		const mail = mailOf(config, 'a@example.test', { title: 'T', body: 'B' }, 'tok');
		expect(mail.text).toBe(
			'B\n\nSee your application: https://portal.example/apply\n\nStop these e-mails: https://portal.example/inbox/unsubscribe?token=tok\n'
		);
		expect(mail.html).toMatch(/^<!doctype html><html><body /);
		expect(mail.headers['List-Unsubscribe']).toBe('<https://portal.example/inbox/unsubscribe?token=tok>');
		const verify = verificationMail(config, 'a@example.test', 'v');
		expect(verify.subject).toBe('Confirm your e-mail address');
		expect(verify.text).toContain('\n\nhttps://portal.example/inbox/verify?token=v\n\n');
	});

	it('in the recipient’s language, link to that language’s pages', () => {
		const mail = mailOf(config, 'a@example.test', n, 'tok', 'es');
		expect(mail.subject).toBe(n.title);
		expect(mail.text).toBe(
			`${n.body}\n\nVer tu solicitud: https://portal.example/es/apply\n\nDejar de recibir estos correos: https://portal.example/es/inbox/unsubscribe?token=tok\n`
		);
		expect(mail.html).toContain('<html lang="es" dir="ltr">');
		expect(mail.html).toContain('&lt;b&gt;Hola&lt;/b&gt;');
		expect(mail.html).toContain('<a href="https://portal.example/es/apply">Ver tu solicitud</a>');
		expect(mail.headers['List-Unsubscribe']).toBe('<https://portal.example/es/inbox/unsubscribe?token=tok>');

		const ar = verificationMail(config, 'a@example.test', 'v', 'ar');
		expect(ar.subject).toBe('أكّد عنوان بريدك الإلكتروني');
		expect(ar.text).toContain('https://portal.example/ar/inbox/verify?token=v');
		expect(ar.html).toContain('<html lang="ar" dir="rtl">');
		expect(verificationMail(config, 'a@example.test', 'v', 'zh-Hans').html).toContain('确认此地址');
	});
});
