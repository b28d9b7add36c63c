import type { StoredFile } from './access';

/**
 * The types served inline for a reviewer's page (`?preview`): images, for an `<img>`. A PDF is never
 * inline: the page fetches it as an attachment and hands its bytes to a sandboxed frame that draws it
 * (docs/decisions/0052-pdf-previews-drawn-in-an-opaque-frame.md).
 */
export const PREVIEW_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** RFC 6266 / 8187: an ASCII fallback and the UTF-8 name. */
function disposition(kind: 'attachment' | 'inline', name: string): string {
	const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
	return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The headers a stored file is sent with (the contract's, docs/security.md "Files"): never run or rendered
 * as the portal's page. A preview (an image) is inline but still sandboxed, and may be framed by the portal only.
 */
export function fileHeaders(file: StoredFile, preview: boolean): Record<string, string> {
	return {
		'content-type': file.contentType === 'text/plain' ? 'text/plain; charset=utf-8' : file.contentType,
		'content-length': String(file.bytes),
		'content-disposition': disposition(preview ? 'inline' : 'attachment', file.name),
		'x-content-type-options': 'nosniff',
		'content-security-policy': preview ? "sandbox; frame-ancestors 'self'" : 'sandbox',
		'cache-control': 'private, no-store',
		...(preview ? { 'x-frame-options': 'SAMEORIGIN' } : {})
	};
}
