import { describe, expect, it } from 'vitest';
import { communityTokenFrom, shortAddress, walletConnectProjectIdFrom } from './chain';

const full = {
	PUBLIC_TOKEN_ADDRESS: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
	PUBLIC_TOKEN_SYMBOL: 'MEMBR',
	PUBLIC_TOKEN_DECIMALS: '18',
	PUBLIC_TOKEN_IMAGE: 'https://example.org/membr.png'
};

describe('communityTokenFrom (the wallet_watchAsset parameters)', () => {
	it('reads the four PUBLIC_TOKEN_* variables', () => {
		expect(communityTokenFrom(full)).toEqual({
			address: full.PUBLIC_TOKEN_ADDRESS,
			symbol: 'MEMBR',
			decimals: 18,
			image: 'https://example.org/membr.png'
		});
	});
	it('the image is optional', () => {
		expect(communityTokenFrom({ ...full, PUBLIC_TOKEN_IMAGE: '' })?.image).toBeNull();
	});
	it.each(['PUBLIC_TOKEN_ADDRESS', 'PUBLIC_TOKEN_SYMBOL', 'PUBLIC_TOKEN_DECIMALS'] as const)(
		'no token is offered without %s',
		(name) => {
			expect(communityTokenFrom({ ...full, [name]: undefined })).toBeNull();
		}
	);
	it('no token is offered for an address wallets would refuse', () => {
		expect(communityTokenFrom({ ...full, PUBLIC_TOKEN_ADDRESS: '0x1234' })).toBeNull();
	});
});

describe('shortAddress', () => {
	it('keeps the start and the end of an address', () => {
		expect(shortAddress('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')).toBe('0x7099…79C8');
	});
});

describe('walletConnectProjectIdFrom (whether /setup offers WalletConnect)', () => {
	const id = 'fedcba9876543210fedcba9876543210';
	it('reads PUBLIC_WALLETCONNECT_PROJECT_ID, trimmed', () => {
		expect(walletConnectProjectIdFrom({ PUBLIC_WALLETCONNECT_PROJECT_ID: ` ${id}\n` })).toBe(id);
	});
	it.each([undefined, '', 'not-a-project-id', id.toUpperCase(), id.slice(2)])('offers none for %j', (value) => {
		expect(walletConnectProjectIdFrom({ PUBLIC_WALLETCONNECT_PROJECT_ID: value })).toBeNull();
	});
});
