import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { detectFileType } from '../files/detect';
import { m } from '$lib/paraglide/messages';

/** The largest logo, in bytes (512 KiB), before and after an SVG is sanitised. */
export const LOGO_MAX_BYTES = 512 * 1024;

const RASTER = new Set(['image/png', 'image/jpeg', 'image/webp']);

export type InspectedLogo =
	{ ok: true; bytes: Uint8Array; type: string; sha256: string } | { ok: false; message: string } | null;

/**
 * Whether a text is an SVG document: its first element `<svg`, after an optional BOM, XML declaration,
 * comments and doctype. One pass of indexOf (a pattern with two runs of comments could backtrack for long
 * on 512 KiB of `<!---->`).
 */
export function looksLikeSvg(text: string): boolean {
	let at = text.startsWith('\uFEFF') ? 1 : 0;
	for (;;) {
		while (at < text.length && /\s/.test(text[at]!)) at++;
		const rest = text.slice(at, at + 9).toLowerCase();
		const end = rest.startsWith('<?xml')
			? text.indexOf('?>', at) + 2
			: rest.startsWith('<!--')
				? text.indexOf('-->', at + 4) + 3
				: rest.startsWith('<!doctype')
					? text.indexOf('>', at) + 1
					: -1;
		if (end === -1) return /^<svg[\s>/]/i.test(text.slice(at, at + 5));
		// An unclosed declaration, comment or doctype: indexOf gave -1, plus its length.
		if (end <= at) return false;
		at = end;
	}
}

/**
 * A logo as the portal will keep it, told from its bytes (never its name or declared type): PNG, JPEG or
 * WebP as sent; SVG sanitised by DOMPurify (scripts, event handlers, foreign objects and links to script
 * gone) and kept only when an `<svg>` remains. Null for an empty file input (no logo sent).
 */
export async function inspectLogo(bytes: Uint8Array): Promise<InspectedLogo> {
	if (bytes.length === 0) return null;
	if (bytes.length > LOGO_MAX_BYTES) return { ok: false, message: m.settings_logo_too_big({ max: '512 KiB' }) };
	const type = detectFileType(bytes);
	if (type && RASTER.has(type)) return kept(bytes, type);
	const text = isUtf8(bytes) ? Buffer.from(bytes).toString('utf8') : '';
	if (!looksLikeSvg(text)) return { ok: false, message: m.settings_logo_type() };
	const clean = await sanitiseSvg(text);
	if (!clean) return { ok: false, message: m.settings_logo_type() };
	const out = new TextEncoder().encode(clean);
	if (out.length > LOGO_MAX_BYTES) return { ok: false, message: m.settings_logo_too_big({ max: '512 KiB' }) };
	return kept(out, 'image/svg+xml');
}

function kept(bytes: Uint8Array, type: string): InspectedLogo {
	return { ok: true, bytes, type, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * DOMPurify's SVG profile over a jsdom window, loaded only when an SVG is saved (a rare admin action):
 * the sanitised `<svg>` element as a standalone document, or null when none is left.
 */
export async function sanitiseSvg(text: string): Promise<string | null> {
	const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
	const { window } = new JSDOM('');
	try {
		const purify = createDOMPurify(window);
		const fragment = purify.sanitize(text, {
			USE_PROFILES: { svg: true, svgFilters: true },
			// Nothing from elsewhere: an <image> or <use> of another document, a style sheet's url().
			FORBID_TAGS: ['image', 'use', 'style', 'a'],
			FORBID_ATTR: ['href', 'xlink:href', 'style'],
			RETURN_DOM_FRAGMENT: true
		});
		const svg = fragment.firstElementChild;
		if (!svg || svg.localName !== 'svg' || fragment.childElementCount !== 1) return null;
		// XML, not HTML, serialisation: a standalone SVG is read by an XML parser (`&nbsp;` would end it).
		return new window.XMLSerializer().serializeToString(svg);
	} finally {
		window.close();
	}
}
