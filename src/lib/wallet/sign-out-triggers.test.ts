import { describe, expect, it } from 'vitest';
import { ACCOUNT_CHANGED, CHAIN_CHANGED, signOutReason } from './sign-out-triggers';
import type { WalletConnection } from './wallet.svelte';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const on = (address: `0x${string}` | undefined, chainId: number | undefined): WalletConnection => ({
	address,
	chainId,
	status: address ? 'connected' : 'disconnected'
});

describe('client-side sign-out triggers', () => {
	it('the active account changing signs out on every page', () => {
		for (const onSetupPage of [true, false]) {
			expect(signOutReason(on(B, 137), on(A, 137), { signedInAddress: A, onSetupPage })).toBe(ACCOUNT_CHANGED);
		}
	});

	it('the same account in other letter case is no change', () => {
		expect(
			signOutReason(on(A, 137), on(undefined, undefined), { signedInAddress: A.toLowerCase(), onSetupPage: false })
		).toBeNull();
	});

	it('a chain change away from 137 signs out on /setup only', () => {
		expect(signOutReason(on(A, 1), on(A, 137), { signedInAddress: A, onSetupPage: true })).toBe(CHAIN_CHANGED);
		expect(signOutReason(on(A, 1), on(A, 137), { signedInAddress: A, onSetupPage: false })).toBeNull();
	});

	it('a change to 137, or the first chain seen on reconnect, is no reason', () => {
		expect(signOutReason(on(A, 137), on(A, 1), { signedInAddress: A, onSetupPage: true })).toBeNull();
		expect(signOutReason(on(A, 1), on(undefined, undefined), { signedInAddress: A, onSetupPage: true })).toBeNull();
	});

	it('nothing happens when nobody is signed in', () => {
		expect(signOutReason(on(B, 1), on(A, 137), { signedInAddress: null, onSetupPage: true })).toBeNull();
	});
});
