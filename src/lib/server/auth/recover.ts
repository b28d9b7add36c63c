import { bytesToHex, hashMessage, keccak256, recoverMessageAddress, type Hex } from 'viem';
import { logger } from '../platform/observability';

/** libsecp256k1's public-key recovery as tiny-secp256k1 exposes it (only what is used here); null or a throw: none. */
export interface Secp256k1 {
	recover(hash: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1, compressed: false): Uint8Array | null;
}

/** The signer of an EIP-191 personal message (lowercase `0x…` address), or null when no address recovers. */
export type RecoverSigner = (args: { message: string; signature: Hex }) => Promise<string | null>;

/** `0x` and 65 bytes (r ‖ s ‖ v) in hex: the only shape taken through libsecp256k1. */
const RSV = /^0x[0-9a-fA-F]{130}$/;

/**
 * Recovers the signer of a personal message (EIP-191 version 0x45, hashed by viem's `hashMessage`)
 * with libsecp256k1 (`load`, called on first use: loadSecp256k1 below), with what viem's
 * `recoverMessageAddress` accepts and nothing more (docs/decisions/0035-signature-recovery-in-libsecp256k1.md):
 *
 * - v is 27 or 28, or 0 or 1; any other v recovers nothing;
 * - r and s are each in 1 … n−1; a high s is accepted (viem does not refuse one either);
 * - a hash at or above n is reduced modulo n by both;
 * - r that is no point's x, or a recovered point at infinity, recovers nothing;
 * - any other shape (not 65 bytes, odd-length hex, not hex) is handed to viem as it stands, so its
 *   verdict is viem's by construction.
 *
 * If libsecp256k1 cannot be loaded at all, every call goes to viem, said once on stderr.
 */
export function createSignerRecovery(load: () => Promise<Secp256k1>): RecoverSigner {
	let backend: Promise<Secp256k1 | null> | undefined;
	const secp256k1 = () =>
		(backend ??= load().catch((err: unknown) => {
			logger.warn(
				`sign-in: libsecp256k1 (neither its native addon nor tiny-secp256k1's WebAssembly) could not be loaded; signatures are recovered by viem's JavaScript instead, several times slower than the WebAssembly and some thirty times slower than the addon: ${err instanceof Error ? err.message : String(err)}`
			);
			return null;
		}));
	return async ({ message, signature }) => {
		const lib = RSV.test(signature) ? await secp256k1() : null;
		if (!lib) return viemSigner(message, signature);
		const recoveryId = toRecoveryId(parseInt(signature.slice(130), 16));
		if (recoveryId === null) return null;
		try {
			const rs = Buffer.from(signature.slice(2, 130), 'hex');
			const publicKey = lib.recover(hashMessage(message, 'bytes'), rs, recoveryId, false);
			// An uncompressed key is 0x04 ‖ x ‖ y; the address is the last 20 bytes of keccak256(x ‖ y).
			return publicKey ? bytesToHex(keccak256(publicKey.subarray(1), 'bytes').subarray(12)) : null;
		} catch {
			// Both builds throw for r or s of 0 or at least n, where viem throws too.
			return null;
		}
	};
}

/** viem's answer, the reference: null where it throws. */
async function viemSigner(message: string, signature: Hex): Promise<string | null> {
	try {
		return (await recoverMessageAddress({ message, signature })).toLowerCase();
	} catch {
		return null;
	}
}

/** viem's `toRecoveryBit`: 0 or 1 as they are, 27 and 28 as 0 and 1, anything else refused. */
function toRecoveryId(v: number): 0 | 1 | null {
	if (v === 0 || v === 27) return 0;
	if (v === 1 || v === 28) return 1;
	return null;
}

/**
 * libsecp256k1 as a native addon: the prebuilt binary `secp256k1` ships for linux-x64 (glibc and musl),
 * darwin-arm64 and win32-x64, loaded without the package's own fallback to `elliptic` (its `bindings`
 * entry throws where no binary loads). About 0.09 ms a recovery against the WebAssembly's 0.5
 * (docs/decisions/0056-native-signature-recovery.md).
 */
export async function nativeSecp256k1(): Promise<Secp256k1> {
	const { default: addon } = await import('secp256k1/bindings.js');
	return {
		recover: (hash, signature, recoveryId, compressed) => addon.ecdsaRecover(signature, recoveryId, hash, compressed)
	};
}

/** libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`): wherever WebAssembly runs. */
export const wasmSecp256k1 = (): Promise<Secp256k1> => import('tiny-secp256k1');

/** The native addon where its binary loads, else the WebAssembly; both are libsecp256k1, so they answer alike. */
export const loadSecp256k1 = (native = nativeSecp256k1, wasm = wasmSecp256k1): Promise<Secp256k1> =>
	native().catch(() => wasm());

/** The portal's recovery: libsecp256k1 (loadSecp256k1), viem if neither of its builds loads. */
export const recoverSigner: RecoverSigner = createSignerRecovery(() => loadSecp256k1());
