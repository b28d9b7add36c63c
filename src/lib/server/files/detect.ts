import { isUtf8 } from 'node:buffer';
import type { FileType } from '$lib/forms/questions';

/**
 * What a file is, told from its first bytes only (never its name or declared type): one of the five types
 * a `file` question may accept, or null. Nothing is parsed or decompressed, so a zip bomb named `.pdf`
 * costs one comparison (its bytes start `PK`, not `%PDF-`). A hand-written check rather than `file-type`:
 * its current major needs Node 22 and, to tell Office files apart, inflates ZIP entries (README.md).
 */
export function detectFileType(bytes: Uint8Array): FileType | null {
	return signatureType(bytes) ?? (isPlainText(bytes) ? 'text/plain' : null);
}

/** The binary types, by their magic numbers in the first 12 bytes; null for anything else (text included). */
export function signatureType(bytes: Uint8Array): Exclude<FileType, 'text/plain'> | null {
	const starts = (sig: readonly number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
	if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf'; // %PDF-
	if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
	if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
	if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'; // RIFF....WEBP
	return null;
}

/** How many first bytes a streamed file's type is told from (text: the part searched for markup). */
export const SNIFF_BYTES = 4096;

/**
 * detectFileType over a file that arrives in chunks (an upload streamed to the store): `start` with its
 * first SNIFF_BYTES (or all of it, `whole`) gives the type as detectFileType would; for text, `more` checks
 * each later chunk (UTF-8 across chunk edges, no NUL) and `end` the last character, each false once the
 * file is not plain text after all. Nothing is held but the decoder's few pending bytes.
 */
export function streamedType() {
	const decoder = new TextDecoder('utf-8', { fatal: true });
	const text = (chunk: Uint8Array, last: boolean) => {
		if (chunk.includes(0)) return false;
		try {
			decoder.decode(chunk, { stream: !last });
			return true;
		} catch {
			return false;
		}
	};
	return {
		start(head: Uint8Array, whole: boolean): FileType | null {
			const binary = signatureType(head);
			if (binary) return binary;
			if (head.length === 0 || !text(head, whole)) return null;
			return MARKUP.test(Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 4096)).toString('utf8'))
				? null
				: 'text/plain';
		},
		more: (chunk: Uint8Array) => text(chunk, false),
		end: () => text(new Uint8Array(0), true)
	};
}

// Markup a browser would render or run if it ever sniffed the file: such "text" is refused.
const MARKUP = /<\s*(!doctype|html|head|body|script|iframe|svg|object|embed|meta|style|\?xml)\b/i;

/** Valid UTF-8, no NUL, and nothing that looks like HTML, SVG or XML in its first 4 KiB. */
export function isPlainText(bytes: Uint8Array): boolean {
	if (bytes.length === 0 || bytes.includes(0) || !isUtf8(bytes)) return false;
	return !MARKUP.test(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('utf8'));
}
