/**
 * A page's text with its per-request CSP nonces blanked (in `nonce="…"` attributes and in a
 * policy's `'nonce-…'`), so two renderings of the same page compare equal (docs/security.md).
 */
export function withoutNonces(text: string): string {
	return text.replace(/nonce="[^"]*"/g, 'nonce=""').replace(/'nonce-[^']*'/g, "'nonce-'");
}
