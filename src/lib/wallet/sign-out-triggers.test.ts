import { describe, expect, it } from 'vitest';
import {
	accountChanged,
	chainChanged,
	signOutReason,
	watchSignOutTriggers,
	type WatchedWallet
} from './sign-out-triggers';
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
			expect(signOutReason(on(B, 137), on(A, 137), { signedInAddress: A, onSetupPage })).toBe(accountChanged());
		}
	});

	it('the same account in other letter case is no change', () => {
		expect(
			signOutReason(on(A, 137), on(undefined, undefined), { signedInAddress: A.toLowerCase(), onSetupPage: false })
		).toBeNull();
	});

	it('a chain change away from 137 signs out on /setup only', () => {
		expect(signOutReason(on(A, 1), on(A, 137), { signedInAddress: A, onSetupPage: true })).toBe(chainChanged());
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

/** A wallet whose reconnect() lands on `restored`, after which the test can move it. */
function fakeWallet(restored: WalletConnection, { changeOnReconnect = false } = {}) {
	const listeners: ((next: WalletConnection, previous: WalletConnection) => void)[] = [];
	const wallet: WatchedWallet & { connection: WalletConnection; move(next: WalletConnection): void } = {
		connection: on(undefined, undefined),
		onConnectionChange: (listener) => listeners.push(listener),
		move(next) {
			const previous = this.connection;
			this.connection = next;
			for (const l of listeners) l(next, previous);
		},
		reconnect() {
			if (changeOnReconnect) this.move(restored);
			else this.connection = restored;
			return Promise.resolve();
		}
	};
	return wallet;
}

describe('watchSignOutTriggers: the watcher the root layout starts for a signed-in member', () => {
	const context =
		(onSetupPage = false) =>
		() => ({ signedInAddress: A, onSetupPage });

	it('another account restored before the watcher listened signs out once', async () => {
		const reasons: string[] = [];
		await watchSignOutTriggers(fakeWallet(on(B, 137)), context(), (r) => reasons.push(r));
		expect(reasons).toEqual([accountChanged()]);
	});

	it('the same account restored signs nobody out; a later account change does', async () => {
		const reasons: string[] = [];
		const wallet = fakeWallet(on(A, 137), { changeOnReconnect: true });
		await watchSignOutTriggers(wallet, context(), (r) => reasons.push(r));
		expect(reasons).toEqual([]);
		wallet.move(on(B, 137));
		expect(reasons).toEqual([accountChanged()]);
	});

	it('leaving Polygon signs out on /setup only, read at the time of the change', async () => {
		let onSetupPage = false;
		const reasons: string[] = [];
		const wallet = fakeWallet(on(A, 137), { changeOnReconnect: true });
		await watchSignOutTriggers(
			wallet,
			() => ({ signedInAddress: A, onSetupPage }),
			(r) => reasons.push(r)
		);
		wallet.move(on(A, 1));
		expect(reasons).toEqual([]);
		wallet.move(on(A, 137));
		onSetupPage = true;
		wallet.move(on(A, 1));
		expect(reasons).toEqual([chainChanged()]);
	});
});
