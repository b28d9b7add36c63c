import { isUtf8 } from 'node:buffer';
import type { FileType } from '$lib/forms/questions';

/**
 * What a file is, told from its first bytes only (never its name or declared type): one of the five types
 * a `file` question may accept, or null. Nothing is parsed or decompressed, so a zip bomb named `.pdf`
 * costs one comparison (its bytes start `PK`, not `%PDF-`). A hand-written check rather than `file-type`:
 * its current major needs Node 22 and, to tell Office files apart, inflates ZIP entries (README.md).
 */
export function detectFileType(bytes: Uint8Array): FileType | null {
	const starts = (sig: readonly number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
	if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf'; // %PDF-
	if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
	if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
	if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'; // RIFF....WEBP
	return isPlainText(bytes) ? 'text/plain' : null;
}

// Markup a browser would render or run if it ever sniffed the file: such "text" is refused.
const MARKUP = /<\s*(!doctype|html|head|body|script|iframe|svg|object|embed|meta|style|\?xml)\b/i;

/** Valid UTF-8, no NUL, and nothing that looks like HTML, SVG or XML in its first 4 KiB. */
export function isPlainText(bytes: Uint8Array): boolean {
	if (bytes.length === 0 || bytes.includes(0) || !isUtf8(bytes)) return false;
	return !MARKUP.test(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('utf8'));
}
