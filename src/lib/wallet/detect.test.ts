import { describe, expect, it } from 'vitest';
import { detectWallet, walletHint } from './detect';

/** A top-level window with no wallet: an EventTarget with empty storage; `extra` adds what a wallet leaves. */
function fakeWindow(extra: Record<string, unknown> = {}, storage: Record<string, string> = {}): Window {
	const win = new EventTarget() as EventTarget & Record<string, unknown>;
	win.parent = win;
	win.localStorage = { getItem: (key: string) => storage[key] ?? null };
	Object.assign(win, extra);
	return win as unknown as Window;
}

/** An EIP-6963 wallet: answers every request by announcing itself, after `delayMs`. */
function announcingWallet(win: Window, delayMs = 0) {
	win.addEventListener('eip6963:requestProvider', () =>
		setTimeout(() => win.dispatchEvent(new Event('eip6963:announceProvider')), delayMs)
	);
}

describe('detectWallet: is there a wallet, without loading the wallet library', () => {
	it('no wallet at all: false after the wait', async () => {
		const started = Date.now();
		expect(await detectWallet(fakeWindow(), 50)).toBe(false);
		expect(Date.now() - started).toBeGreaterThanOrEqual(40);
	});

	it('an injected window.ethereum: true at once', async () => {
		expect(await detectWallet(fakeWindow({ ethereum: {} }), 10_000)).toBe(true);
	});

	it('an EIP-6963 wallet announcing itself within the wait: true', async () => {
		const win = fakeWindow();
		announcingWallet(win, 5);
		expect(await detectWallet(win, 10_000)).toBe(true);
	});

	it('a wallet announcing after the wait: false (the member reloads once it is there)', async () => {
		const win = fakeWindow();
		announcingWallet(win, 200);
		expect(await detectWallet(win, 20)).toBe(false);
	});

	it('window.ethereum injected during the wait: true', async () => {
		const win = fakeWindow();
		setTimeout(() => Object.assign(win, { ethereum: {} }), 5);
		expect(await detectWallet(win, 30)).toBe(true);
	});

	it('a Safe App frame, or a wallet used last time (a WalletConnect session to restore): true', () => {
		expect(walletHint(fakeWindow({ parent: {} }))).toBe(true);
		expect(walletHint(fakeWindow({}, { 'wagmi.recentConnectorId': '"walletConnect"' }))).toBe(true);
	});

	it('storage that throws is no wallet', () => {
		const win = fakeWindow();
		Object.defineProperty(win, 'localStorage', {
			get() {
				throw new DOMException('denied', 'SecurityError');
			}
		});
		expect(walletHint(win)).toBe(false);
	});
});
