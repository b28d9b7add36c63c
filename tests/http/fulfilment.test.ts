import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startFulfilmentChain, type FulfilmentChain } from '../helpers/fulfilment-chain';
import { createServerDatabase } from '../helpers/postgres.js';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

// "Done when": an admin approves forty applicants, downloads the two batch files, the Safe's signers
// execute them, and one "Find on chain" click records eighty steps with their hashes. On the built
// server without JavaScript, against ganache (chain 137) with a Safe 1.4.1 treasury.
const GRANT = 250n * 10n ** 18n;
const newAdmin = () => privateKeyToAccount(generatePrivateKey());

describe.each(engines)('fulfilment through the admin screen on %s', (engine) => {
	const admins = [newAdmin(), newAdmin()];
	let chain: FulfilmentChain;
	let server: RunningServer;
	let bare: RunningServer;
	let drop: (() => Promise<void>) | undefined;

	beforeAll(async () => {
		chain = await startFulfilmentChain();
		const env: Record<string, string> = { ADMIN_ADDRESSES: admins.map((a) => a.address).join(',') };
		if (engine === 'postgres') {
			const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, { prefix: 'portal_fulfil' });
			env.DATABASE_URL = database.url;
			drop = database.drop;
		}
		// `bare` lacks the event and the grant: the steps that need them are refused by name.
		const settings = chain.env(GRANT);
		[server, bare] = await Promise.all([
			startServer({ env: { ...env, ...settings } }),
			startServer({ env: { ...env, ...settings, ALLOWLIST_EVENT: '', TOKEN_GRANT_AMOUNT: '' } })
		]);
	}, 60_000);
	afterAll(async () => {
		await Promise.all([server?.stop(), bare?.stop()]);
		await chain?.close();
		await drop?.();
	});

	/** `n` members apply; their application ids, from the CSV of the review table. */
	async function applicants(base: string, cookie: string, n: number): Promise<string[]> {
		const addresses: string[] = [];
		for (let i = 0; i < n; i++) {
			const member = newAdmin();
			const applied = await postForm(
				`${base}/apply`,
				{ displayName: `Applicant ${i}`, motivation: 'Gardening' },
				{ cookie: await signIn(base, member) }
			);
			expect(applied.status).toBe(303);
			addresses.push(member.address.toLowerCase());
		}
		const csv = (await getPage(`${base}/admin/applications.csv?review=pending`, cookie)).body;
		return csv
			.split('\r\n')
			.map((line) => line.split(',').map((cell) => cell.replace(/^"|"$/g, '')))
			.filter((cells) => addresses.includes(cells[1]!))
			.map((cells) => cells[0]!);
	}

	const download = async (base: string, cookie: string, step: string, query = '') => {
		const response = await fetch(`${base}/admin/batches/${step}.json${query}`, { headers: { cookie } });
		return { response, body: (await response.json()) as Record<string, unknown> };
	};

	it('forty approved, two batch files executed by the Safe, one Find on chain: eighty steps recorded with their hashes', async () => {
		const base = server.url;
		const cookie = await signIn(base, admins[0]!);
		const ids = await applicants(base, cookie, 40);
		expect(ids).toHaveLength(40);
		const approve = await postForm(
			`${base}/admin?/bulk`,
			{ applicationIds: ids, field: 'review', from: 'pending', to: 'approved', confirm: 'yes' },
			{ cookie }
		);
		expect(approve.status).toBe(303);

		// Shown before download: every recipient and the amount each receives.
		const preview = textOf((await getPage(`${base}/admin/batches`, cookie)).body);
		expect(preview).toContain('40 recipients in 1 transaction');
		expect(preview).toContain('40 recipients in 40 transactions');
		expect(preview).toContain('250 COMM each');
		// Each recipient's step in words, not the state's code (issue 61).
		expect(preview).toMatch(/Step now.*Waiting to be added/s);
		expect(preview).toMatch(/Step now.*Waiting to be sent/s);
		expect(preview).not.toMatch(/\bpending\b/);

		const allowlist = await download(base, cookie, 'allowlist');
		expect(allowlist.response.status).toBe(200);
		expect(allowlist.response.headers.get('content-disposition')).toMatch(/^attachment; filename="allowlist-batch-/);
		expect(allowlist.body).toMatchObject({ version: '1.0', chainId: '137' });
		const distribution = await download(base, cookie, 'distribution');
		expect(distribution.response.status).toBe(200);
		type Batch = { transactions: { to: `0x${string}`; value: string; data: `0x${string}` }[] };
		expect((distribution.body as Batch).transactions).toHaveLength(40);

		await chain.mine(50);
		const allowlistTx = await chain.execute((allowlist.body as Batch).transactions);
		const distributionTx = await chain.execute((distribution.body as Batch).transactions);
		expect([allowlistTx.status, distributionTx.status]).toEqual(['success', 'success']);

		const found = await postForm(`${base}/admin?/reconcile`, { step: ['allowlist', 'distribution'] }, { cookie });
		expect(found.status).toBe(200);
		const text = textOf(found.body);
		expect(text).toContain('Allowlist: 40 found on chain and recorded as added');
		expect(text).toContain('Token distribution: 40 found on chain and recorded as sent');
		expect(text).toContain('Nothing else waits for this step.');

		const csv = (await getPage(`${base}/admin/applications.csv?review=approved`, cookie)).body;
		const rows = csv.split('\r\n').filter((line) => ids.some((id) => line.startsWith(`"${id}"`)));
		expect(rows).toHaveLength(40);
		for (const row of rows) {
			const cells = row.split(',').map((c) => c.replace(/^"|"$/g, ''));
			expect(cells.slice(5, 7)).toEqual(['added', 'sent']);
			expect(cells[9]).toBe(distributionTx.hash.toLowerCase());
		}
		const page = textOf((await getPage(`${base}/admin/applications/${ids[0]}`, cookie)).body);
		expect(page).toContain(allowlistTx.hash.toLowerCase());
		expect(page).toContain('found on chain');

		// Idempotent: again, nothing is found and nothing recorded; no batch is left to make.
		const again = textOf((await postForm(`${base}/admin?/reconcile`, { step: 'allowlist' }, { cookie })).body);
		expect(again).toContain('Allowlist: 0 found on chain');
		expect((await download(base, cookie, 'allowlist')).response.status).toBe(409);
	});

	it('a missing setting is a 400 naming it; a bad step or bad ids is a 400; non-admins see nothing', async () => {
		const cookie = await signIn(bare.url, admins[1]!);
		const allowlist = await postForm(`${bare.url}/admin?/reconcile`, { step: 'allowlist' }, { cookie });
		expect(allowlist.status).toBe(400);
		expect(textOf(allowlist.body)).toContain(
			'needs the event the allowlist contract emits when it adds a member (setting ALLOWLIST_EVENT), which is not set'
		);
		const distribution = await download(bare.url, cookie, 'distribution');
		expect(distribution.response.status).toBe(400);
		expect(distribution.body).toEqual({
			error: { code: 'not_configured', message: expect.stringContaining('TOKEN_GRANT_AMOUNT') as string }
		});
		for (const step of ['', 'review', '<script>', 'allowlist\u0000'])
			expect(
				(await postForm(`${server.url}/admin?/reconcile`, { step }, { cookie: await signIn(server.url, admins[1]!) }))
					.status
			).toBe(400);
		const adminCookie = await signIn(server.url, admins[1]!);
		for (const query of [
			'?ids=1',
			`?ids=${'a'.repeat(5000)}`,
			`?${Array(101).fill(`ids=${crypto.randomUUID()}`).join('&')}`
		]) {
			expect((await download(server.url, adminCookie, 'allowlist', query)).response.status).toBe(400);
			expect((await getPage(`${server.url}/admin/batches${query}`, adminCookie)).status).toBe(400);
		}

		const member = await signIn(server.url, newAdmin());
		for (const step of ['allowlist', 'distribution']) {
			const hidden = await fetch(`${server.url}/admin/batches/${step}.json`, { headers: { cookie: member } });
			expect(hidden.status).toBe(404);
		}
		expect((await postForm(`${server.url}/admin?/reconcile`, { step: 'allowlist' }, { cookie: member })).status).toBe(
			404
		);
		expect((await getPage(`${server.url}/admin/batches`, member)).status).toBe(404);
	});
});
