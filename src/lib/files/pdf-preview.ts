/**
 * The reviewers' PDF preview (docs/decisions/0052-pdf-previews-drawn-in-an-opaque-frame.md): what the
 * page (PdfPreview.svelte) and the frame (pdf-frame.ts) say to each other, and the frame's document.
 *
 * The frame is `<iframe sandbox="allow-scripts" srcdoc=…>`: an opaque origin (no cookies, storage or DOM
 * of the portal), which runs one script, PDF.js with our drawing code. The page fetches the file (an
 * attachment, same origin) and posts its bytes to the frame once the frame says it is ready; the file is
 * never a document of any origin.
 */

/** The frame says it listens (sent to the page with "*": it carries nothing). */
export const FRAME_READY = 'portal-pdf-preview:ready';
/** The page hands the bytes over: `{ type, bytes: ArrayBuffer }`, transferred. */
export const PDF_BYTES = 'portal-pdf-preview:bytes';
/** The frame could not draw them (not a PDF PDF.js reads, a password, too broken). */
export const FRAME_FAILED = 'portal-pdf-preview:failed';
/** The frame has drawn its first page: `{ type, pages }`. */
export const FRAME_DRAWN = 'portal-pdf-preview:drawn';

const escapeHtml = (s: string) =>
	s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The frame's document. Its own policy narrows the page's (which a srcdoc document inherits): it loads
 * exactly the viewer's script and nothing else: no fetch, no frame, no form, no font or image by URL.
 * `pageLabel` holds `{page}` and `{pages}`, filled in per page.
 */
export function frameDocument({
	origin,
	script,
	lang,
	dir,
	label,
	pageLabel
}: {
	origin: string;
	script: string;
	lang: string;
	dir: 'ltr' | 'rtl';
	label: string;
	pageLabel: string;
}): string {
	const src = new URL(script, origin).href;
	const policy = [
		"default-src 'none'",
		`script-src ${src}`,
		"style-src 'unsafe-inline'",
		'img-src data: blob:',
		"base-uri 'none'",
		"form-action 'none'"
	].join('; ');
	return `<!doctype html>
<html lang="${escapeHtml(lang)}" dir="${dir}" data-origin="${escapeHtml(origin)}" data-page-label="${escapeHtml(pageLabel)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}">
<meta name="color-scheme" content="light dark">
<style>
html, body { margin: 0; height: 100%; }
body { background: #e4e4e7; }
@media (prefers-color-scheme: dark) { body { background: #27272a; } }
#pages { box-sizing: border-box; height: 100%; overflow: auto; padding: 8px; }
#pages:focus-visible { outline: 3px solid #2563eb; outline-offset: -3px; }
@media (prefers-color-scheme: dark) { #pages:focus-visible { outline-color: #93c5fd; } }
canvas { display: block; width: 100%; max-width: 1200px; height: auto; margin: 0 auto 8px; background: #fff; box-shadow: 0 1px 3px rgb(0 0 0 / 0.3); }
</style>
</head>
<body>
<div id="pages" tabindex="0" role="group" aria-label="${escapeHtml(label)}"></div>
<script src="${escapeHtml(src)}"></script>
</body>
</html>`;
}
