// Adding someone to the team by ENS name (issue 59) through real HTTP on the built server, without
// JavaScript, with ENS_RPC_URL pointed at a real EVM (ganache) that answers viem's own calls: the name is
// resolved forward when the owner adds and the address is what the team holds; a name that points
// nowhere, a malformed name and an endpoint that is down are each a 400 naming the address field, with
// nothing written. Without ENS_RPC_URL the same name is refused as not looked up (team.test.ts).
import { createServer, type Server } from 'node:http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../helpers/auth';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startEnsChain, type EnsChain } from '../helpers/ens-chain';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const alice = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as `0x${string}`;

describe('adding to the team by ENS name', () => {
	let chain: EnsChain;
	let server: RunningServer;
	let down: RunningServer;
	let refusing: Server;
	let owner: string;
	const add = (on: RunningServer, address: string, cookie = owner) =>
		postForm(`${on.url}/admin/team?/add`, { address, role: 'reviewer' }, { cookie });
	const teamText = async (on: RunningServer, cookie = owner) =>
		textOf((await getPage(`${on.url}/admin/team`, cookie)).body);
	/** Every address the team page names. */
	const addresses = async (on: RunningServer) => [...new Set((await teamText(on)).match(/0x[0-9a-f]{40}/g))].sort();

	beforeAll(async () => {
		chain = await startEnsChain();
		await chain.setAddress('alice.eth', alice);
		// An endpoint that answers every call with a server error (ENS unreachable).
		refusing = createServer((_req, res) => res.writeHead(502).end());
		await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
		const refusingUrl = `http://127.0.0.1:${(refusing.address() as { port: number }).port}`;
		[server, down] = await Promise.all([
			startServer({ env: { ADMIN_ADDRESSES: admin.address, ENS_RPC_URL: chain.url } }),
			startServer({ env: { ADMIN_ADDRESSES: admin.address, ENS_RPC_URL: refusingUrl } })
		]);
		owner = await signIn(server.url, admin);
	}, 180_000);
	afterAll(async () => {
		await Promise.all([server?.stop(), down?.stop()]);
		await new Promise((resolve) => refusing?.close(resolve));
		await chain?.close();
	});

	it('the form says a name may be typed; a name is resolved when added and its address joins the team', async () => {
		const page = await getPage(`${server.url}/admin/team`, owner);
		expect(textOf(page.body)).toContain('or an ENS name such as alice.eth');
		expect(await teamText(server)).not.toContain(alice);
		const added = await add(server, 'Alice.eth');
		expect(added.status).toBe(303);
		expect(added.headers.get('location')).toBe('/admin/team?done=added');
		expect(await teamText(server)).toContain(alice);
		// The same name again holds the same role already: nothing new.
		expect((await add(server, 'alice.eth')).headers.get('location')).toBe('/admin/team?done=unchanged');
	});

	it('a name that points nowhere, a malformed one, or ENS down: a 400 naming the address, nothing written', async () => {
		const before = await addresses(server);
		const nowhere = await add(server, 'nobody-here.eth');
		expect(nowhere.status).toBe(400);
		expect(textOf(nowhere.body)).toContain('nobody-here.eth points at no address');
		const malformed = await add(server, 'bad name!.eth');
		expect(malformed.status).toBe(400);
		expect(textOf(malformed.body)).toContain('This is not a valid ENS name');
		const long = await add(server, `${'a'.repeat(300)}.eth`);
		expect(long.status).toBe(400);
		expect(textOf(long.body)).toContain('This is not a valid ENS name');
		expect(await addresses(server)).toEqual(before);

		const cookie = await signIn(down.url, admin);
		const unreachable = await add(down, 'alice.eth', cookie);
		expect(unreachable.status).toBe(400);
		expect(textOf(unreachable.body)).toContain('ENS names cannot be looked up just now');
		expect(await teamText(down, cookie)).not.toContain(alice);
	});
});
