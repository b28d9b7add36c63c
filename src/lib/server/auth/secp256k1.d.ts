// secp256k1 (the native addon) ships no types; what recover.ts uses of its `bindings` entry, which loads
// the prebuilt binary and throws where none loads (its main entry would fall back to `elliptic` instead).
declare module 'secp256k1/bindings.js' {
	const addon: {
		/** The public key (65 bytes uncompressed, 33 compressed); throws for a signature that recovers none. */
		ecdsaRecover(signature: Uint8Array, recoveryId: number, hash: Uint8Array, compressed?: boolean): Uint8Array;
	};
	export default addon;
}
