import { describe, expect, it } from 'vitest';
import { buildDirectives, servedPolicy } from '../../deploy/security-headers.js';

/** The header SvelteKit writes from kit.csp's directives, with a script nonce as a page's has. */
function pagePolicy(nonce: string | null) {
	return Object.entries(buildDirectives() as Record<string, string[]>)
		.map(([name, values]) => {
			const sources = values.map((v) => (['none', 'self', 'unsafe-inline'].includes(v) ? `'${v}'` : v));
			if (name === 'script-src' && nonce) sources.push(`'nonce-${nonce}'`);
			return [name, ...sources].join(' ');
		})
		.join('; ');
}

// The policy a page is sent (deploy/security-headers.js): WalletConnect's hosts only when it is configured.
// What is read of one page's policy is remembered for the next, whose nonce differs (issue 60).
describe('servedPolicy', () => {
	it("keeps each page's own nonce and drops WalletConnect's hosts when it is not configured", () => {
		const nonces = ['YpUDoB4dUNgkG1eJDkA4Zg==', 'NjFxmh/WYpqePUwopIyIvA==', 'a+b/c=='];
		for (const nonce of [...nonces, ...nonces]) {
			const served = servedPolicy(pagePolicy(nonce), { walletConnect: false });
			expect(served).toContain(`script-src 'self' 'nonce-${nonce}'`);
			for (const other of nonces.filter((n) => n !== nonce)) expect(served).not.toContain(other);
			expect(served).not.toMatch(/walletconnect|web3modal|reown|blob:/);
			expect(served).not.toContain('\u0000');
			expect(served).toContain("connect-src 'self'; object-src 'none'");
		}
	});

	it('a policy without a nonce, and WalletConnect configured (the policy as built)', () => {
		expect(servedPolicy(pagePolicy(null), { walletConnect: false })).toMatch(/script-src 'self'; /);
		expect(servedPolicy(pagePolicy(null), { walletConnect: false })).not.toContain('walletconnect');
		const built = pagePolicy('YpUDoB4dUNgkG1eJDkA4Zg==');
		expect(servedPolicy(built, { walletConnect: true })).toBe(built);
		expect(built).toContain('wss://relay.walletconnect.org');
	});
});
