// http_ece ships no types: the one call the loopback push service makes (RFC 8188 aes128gcm, RFC 8291 keys).
declare module 'http_ece' {
	import type { ECDH } from 'node:crypto';
	interface DecryptOptions {
		version: 'aes128gcm';
		privateKey: ECDH;
		authSecret: string;
	}
	const ece: { decrypt(buffer: Buffer, options: DecryptOptions): Buffer };
	export default ece;
}
