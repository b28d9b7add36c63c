// The recovery through libsecp256k1, in both its builds (the native addon and the WebAssembly), answers
// exactly what viem's recoverMessageAddress answers: the signer for every honest signature, and the same
// address or the same refusal for anything else.
import fc from 'fast-check';
import { numberToHex, recoverMessageAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '$lib/server/platform/observability';
import {
	createSignerRecovery,
	loadSecp256k1,
	nativeSecp256k1,
	recoverSigner as portalRecovery,
	wasmSecp256k1
} from './recover';

/** The order of secp256k1's group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** The field's prime. */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

const word = (n: bigint) => numberToHex(n, { size: 32 }).slice(2);
const rsv = (r: bigint, s: bigint, v: number): Hex => `0x${word(r)}${word(s)}${v.toString(16).padStart(2, '0')}`;
const split = (signature: Hex) => ({
	r: BigInt(`0x${signature.slice(2, 66)}`),
	s: BigInt(`0x${signature.slice(66, 130)}`),
	v: parseInt(signature.slice(130), 16)
});

/** viem's verdict, the reference: the lowercase address, or null where it throws. */
async function viem(message: string, signature: Hex): Promise<string | null> {
	try {
		return (await recoverMessageAddress({ message, signature })).toLowerCase();
	} catch {
		return null;
	}
}

const key = fc.bigInt(1n, N - 1n).map((d): Hex => `0x${word(d)}`);
// Any text, astral characters and lone surrogates included (JSON.parse can produce those).
const text = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 300 }),
	fc.string({ unit: 'grapheme', maxLength: 300 }),
	fc.constantFrom('', '\ud800', 'a\udc00b', '\u{1F600}'.repeat(40), 'x'.repeat(2000))
);

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const address = account.address.toLowerCase();
const message = 'Sign in to the member portal.\nNonce: abc';
const honest = await account.signMessage({ message });

// Where secp256k1 ships a prebuilt binary that CI runs on; elsewhere the native rows are skipped, not failed.
const NATIVE_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

describe.each([
	['its native addon', nativeSecp256k1, NATIVE_PLATFORM],
	['tiny-secp256k1 (WebAssembly)', wasmSecp256k1, true]
] as const)('recoverSigner through libsecp256k1, %s', (_, load, runs) => {
	const recoverSigner = createSignerRecovery(load);
	const test = it.runIf(runs);
	// The build itself must load: createSignerRecovery would otherwise answer through viem, and pass.
	beforeAll(async () => {
		if (runs) expect(typeof (await load()).recover).toBe('function');
	});

	test('recovers the signer, as viem does, for random keys and messages', async () => {
		await fc.assert(
			fc.asyncProperty(key, text, async (privateKey, m) => {
				const signer = privateKeyToAccount(privateKey);
				const signature = await signer.signMessage({ message: m });
				const recovered = await recoverSigner({ message: m, signature });
				expect(recovered).toBe(signer.address.toLowerCase());
				expect(recovered).toBe(await viem(m, signature));
			}),
			{ numRuns: 150 }
		);
	});

	test('answers as viem does for any 65 bytes over any message (another address, or none)', async () => {
		const v = fc.oneof(fc.constantFrom(0, 1, 27, 28), fc.integer({ min: 0, max: 255 }));
		const scalar = fc.oneof(
			fc.bigInt(0n, 2n ** 256n - 1n),
			fc.bigInt(1n, N - 1n),
			fc.constantFrom(0n, 1n, N - 1n, N, N + 1n, P - 1n, P, 2n ** 256n - 1n)
		);
		await fc.assert(
			fc.asyncProperty(text, scalar, scalar, v, async (m, r, s, recovery) => {
				const signature = rsv(r, s, recovery);
				expect(await recoverSigner({ message: m, signature })).toBe(await viem(m, signature));
			}),
			{ numRuns: 400 }
		);
	});

	test('takes v as 27/28 or 0/1 and refuses every other v, as viem does', async () => {
		const { r, s, v } = split(honest);
		expect([27, 28]).toContain(v);
		for (const [recovery, expected] of [
			[v, address],
			[v - 27, address],
			[v === 27 ? 28 : 27, 'another'],
			[v === 27 ? 1 : 0, 'another'],
			[2, null],
			[3, null],
			[26, null],
			[29, null],
			[35, null],
			[255, null]
		] as const) {
			const signature = rsv(r, s, recovery);
			const recovered = await recoverSigner({ message, signature });
			if (expected === 'another') expect(recovered).toMatch(/^0x[0-9a-f]{40}$/);
			if (expected === 'another') expect(recovered).not.toBe(address);
			else expect(recovered).toBe(expected);
			expect(recovered, `v = ${recovery}`).toBe(await viem(message, signature));
		}
	});

	test('accepts a high s (n − s with the other v) as viem does', async () => {
		const { r, s, v } = split(honest);
		const high = rsv(r, N - s, v === 27 ? 28 : 27);
		expect(N - s > N / 2n || s > N / 2n).toBe(true);
		expect(await recoverSigner({ message, signature: high })).toBe(address);
		expect(await viem(message, high)).toBe(address);
	});

	test('refuses r or s of 0 or at least n, and an r that is no point, as viem does', async () => {
		const { r, s, v } = split(honest);
		const cases: [string, Hex][] = [
			['r = 0', rsv(0n, s, v)],
			['s = 0', rsv(r, 0n, v)],
			['r = n', rsv(N, s, v)],
			['s = n', rsv(r, N, v)],
			['r = n + r (the same point, out of range)', rsv(N + r < 2n ** 256n ? N + r : N, s, v)],
			['s = 2^256 − 1', rsv(r, 2n ** 256n - 1n, v)],
			['r = p − 1', rsv(P - 1n, s, v)]
		];
		for (const [label, signature] of cases) {
			expect(await recoverSigner({ message, signature }), label).toBeNull();
			expect(await viem(message, signature), label).toBeNull();
		}
		// Small values of r: some are the x of a point (another signer), some are not (none); both as viem.
		const answers: (string | null)[] = [];
		for (let x = 1n; x <= 12n; x++) {
			const signature = rsv(x, s, v);
			const recovered = await recoverSigner({ message, signature });
			expect(recovered, `r = ${x}`).toBe(await viem(message, signature));
			answers.push(recovered);
		}
		expect(answers).toContain(null);
		expect(answers.some((a) => a !== null)).toBe(true);
	});

	test('answers any other shape as viem does: wrong lengths, odd hex, upper-case hex', async () => {
		const body = honest.slice(2);
		const shapes: Hex[] = [
			'0x',
			'0x00',
			`0x${body.slice(0, 128)}`, // 64 bytes (EIP-2098's compact form, which viem does not take here)
			`0x${body}00`, // 66 bytes
			`0x${body.slice(0, 129)}`, // 129 hex digits
			`0x${body}0`, // 131 hex digits
			`0x${body.toUpperCase()}`,
			`0x${'ab'.repeat(65)}`
		];
		for (const signature of shapes) {
			expect(await recoverSigner({ message, signature }), signature).toBe(await viem(message, signature));
		}
		expect(await recoverSigner({ message, signature: `0x${body.toUpperCase()}` })).toBe(address);
	});
});

describe('the recovery the portal uses', () => {
	afterEach(() => vi.restoreAllMocks());

	it.runIf(NATIVE_PLATFORM)('is the native addon where its binary loads', async () => {
		const loaded = await loadSecp256k1();
		expect(loaded).not.toBe(await wasmSecp256k1());
		expect(await portalRecovery({ message, signature: honest })).toBe(address);
	});

	it('is the WebAssembly where the native addon does not load', async () => {
		const loaded = await loadSecp256k1(() => Promise.reject(new Error('no prebuilt binary')));
		expect(loaded).toBe(await wasmSecp256k1());
		expect(await createSignerRecovery(() => Promise.resolve(loaded))({ message, signature: honest })).toBe(address);
	});

	it('falls back to viem when neither build of libsecp256k1 loads, and says so once', async () => {
		const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
		const recover = createSignerRecovery(() =>
			loadSecp256k1(
				() => Promise.reject(new Error('no prebuilt binary')),
				() => Promise.reject(new Error('no WebAssembly here'))
			)
		);
		expect(await recover({ message, signature: honest })).toBe(address);
		expect(await recover({ message, signature: rsv(1n, 0n, 27) })).toBeNull();
		expect(await recover({ message: `${message}.`, signature: honest })).not.toBe(address);
		expect(warn).toHaveBeenCalledTimes(1);
		expect(String(warn.mock.calls[0]?.[0])).toMatch(/libsecp256k1.*viem.*no WebAssembly here/);
	});

	it('recovers through libsecp256k1 when it loads (viem only for other shapes)', async () => {
		const recover = vi.fn(() => null);
		const withSpy = createSignerRecovery(() => Promise.resolve({ recover }));
		expect(await withSpy({ message, signature: honest })).toBeNull();
		expect(recover).toHaveBeenCalledTimes(1);
		expect(await withSpy({ message, signature: '0x00' })).toBeNull();
		expect(recover).toHaveBeenCalledTimes(1);
	});
});
