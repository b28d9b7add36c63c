import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

// Issue 54: /admin was slower than /admix in 72% of 1,500 paired loopback GETs, because only a hidden
// section's path asked who was calling (reroute's roles probe). Every request asks now: a member
// cannot tell a hidden section from an unknown path by the time it takes. Pairs alternate which goes
// first, so that neither gains from going second; the share where the hidden one is slower stays near
// one half.
const PAIRS = 1000;

// A measurement, not a check: timing on a shared machine belongs in bench/ (bench/README.md, "Hidden
// sections"); run it with HIDDEN_TIMING=1 npx vitest run tests/http/hidden-timing.test.ts.
describe.runIf(process.env.HIDDEN_TIMING)('a hidden section takes the time an unknown path takes', () => {
	let server: RunningServer;
	let cookie: string;
	beforeAll(async () => {
		server = await startServer();
		cookie = await signIn(server.url, privateKeyToAccount(generatePrivateKey()));
	}, 200_000);
	afterAll(async () => {
		await server?.stop();
	});

	const timed = async (path: string) => {
		const started = process.hrtime.bigint();
		const response = await fetch(server.url + path, { headers: { cookie, accept: 'text/html' } });
		await response.arrayBuffer();
		const ns = process.hrtime.bigint() - started;
		expect(response.status).toBe(404);
		return ns;
	};

	it(`over ${PAIRS} pairs of a signed-in member's GETs, /admin is slower than /admix about half the time`, async () => {
		// Warm both paths (the first requests compile and cache).
		for (let i = 0; i < 50; i++) await Promise.all([timed('/admin'), timed('/admix')]);
		let hiddenSlower = 0;
		for (let i = 0; i < PAIRS; i++) {
			let hidden: bigint, unknown: bigint;
			if (i % 2 === 0) {
				hidden = await timed('/admin');
				unknown = await timed('/admix');
			} else {
				unknown = await timed('/admix');
				hidden = await timed('/admin');
			}
			if (hidden > unknown) hiddenSlower++;
		}
		const share = hiddenSlower / PAIRS;
		// Without the fix: 0.72 on an idle machine (the review), 0.557 on a loaded one; a fair coin over 1,000
		// pairs leaves 0.5 by more than 0.06 about once in 10^4.
		expect(share).toBeGreaterThan(0.44);
		expect(share).toBeLessThan(0.56);
	}, 180_000);
});
