import { describe, expect, it } from 'vitest';
import { frameDocument } from './pdf-preview';

describe('the PDF preview frame’s document', () => {
	const doc = frameDocument({
		origin: 'https://portal.example.org',
		script: '/_app/immutable/workers/pdf-frame-abc.js',
		lang: 'ar',
		dir: 'rtl',
		label: 'Preview of "><script>alert(1)</script>.pdf',
		pageLabel: 'Page {page} of {pages}'
	});

	it('loads exactly the viewer’s script, and its policy allows nothing else to load', () => {
		expect([...doc.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
			'<script src="https://portal.example.org/_app/immutable/workers/pdf-frame-abc.js">'
		]);
		const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(doc)?.[1];
		expect(policy).toBe(
			'default-src &#39;none&#39;; script-src https://portal.example.org/_app/immutable/workers/pdf-frame-abc.js; style-src &#39;unsafe-inline&#39;; img-src data: blob:; base-uri &#39;none&#39;; form-action &#39;none&#39;'
		);
		expect(policy).not.toMatch(/unsafe-eval|connect-src|\*/);
	});

	it('a file’s name is text: escaped, never markup', () => {
		expect(doc).toContain('aria-label="Preview of &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;.pdf"');
		expect(doc).toContain('<html lang="ar" dir="rtl" data-origin="https://portal.example.org"');
	});
});
