// ENS names for the people the portal names (issue 59): with ENS_RPC_URL set, an address's reverse record
// counts only when the name resolves forward to that same address; cached; a slow endpoint never holds a
// page longer than the wait; unset, no names. Against a real EVM (ganache) answering viem's own calls.
import { createServer, type Server } from 'node:http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensNames } from '../../src/lib/server/team/ens';
import { rpcEndpoint } from '../../src/lib/server/platform/endpoints';
import { resetSingletons } from '../../src/lib/platform/singleton';
import { startEnsChain, type EnsChain } from '../helpers/ens-chain';

const account = () => privateKeyToAccount(generatePrivateKey()).address;
const lower = (a: string) => a.toLowerCase();
// Generous here (a cold chain's first calls take seconds); the page's one-second wait has its own test.
const WAIT = 20_000;

describe('ENS names', () => {
	let chain: EnsChain;
	beforeAll(async () => {
		chain = await startEnsChain();
	}, 60_000);
	afterAll(async () => {
		await chain?.close();
	});

	it('shows a reverse record only when its name resolves forward to the same address', async () => {
		const alice = account();
		const impostor = account();
		const nobody = account();
		await chain.setName(alice, 'alice.eth');
		await chain.setAddress('alice.eth', alice);
		// The impostor's reverse record claims alice.eth, which resolves to Alice.
		await chain.setName(impostor, 'alice.eth');
		expect(await ensNames(rpcEndpoint(chain.url), [lower(alice), lower(impostor), lower(nobody)], WAIT)).toEqual({
			[lower(alice)]: 'alice.eth'
		});
	});

	it('keeps a name for a day: a changed record shows on the next day, not the next request', async () => {
		const bob = account();
		await chain.setName(bob, 'bob.eth');
		await chain.setAddress('bob.eth', bob);
		expect(await ensNames(rpcEndpoint(chain.url), [lower(bob)], WAIT)).toEqual({ [lower(bob)]: 'bob.eth' });
		await chain.setName(bob, '');
		expect(await ensNames(rpcEndpoint(chain.url), [lower(bob)], WAIT)).toEqual({ [lower(bob)]: 'bob.eth' });
		resetSingletons(); // a restart forgets
		expect(await ensNames(rpcEndpoint(chain.url), [lower(bob)], WAIT)).toEqual({});
	});

	it('without ENS_RPC_URL: no names, and nothing asked', async () => {
		const carol = account();
		await chain.setName(carol, 'carol.eth');
		await chain.setAddress('carol.eth', carol);
		expect(await ensNames(null, [lower(carol)], WAIT)).toEqual({});
	});

	it('an endpoint that never answers holds the page at most the wait, and the address stands alone', async () => {
		const sockets = new Set<import('node:net').Socket>();
		const silent: Server = createServer(() => {});
		silent.on('connection', (s) => sockets.add(s));
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		try {
			const started = Date.now();
			expect(
				await ensNames(
					rpcEndpoint(`http://127.0.0.1:${(silent.address() as { port: number }).port}`),
					[lower(account())],
					300
				)
			).toEqual({});
			expect(Date.now() - started).toBeLessThan(1000);
		} finally {
			for (const s of sockets) s.destroy();
			await new Promise((resolve) => silent.close(resolve));
		}
	});
});
