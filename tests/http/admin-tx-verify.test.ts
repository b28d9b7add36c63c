import { asc, eq, sql } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DatabaseHandle } from '../../src/lib/server/db/client';
import { applicationEvents, webhookDeliveries } from '../../src/lib/server/db/schema';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { randomTxHash } from '../helpers/members';
import { createServerDatabase } from '../helpers/postgres.js';
import { Receiver, newSecret, verified } from '../helpers/receiver';
import { startFakeRpc, type FakeRpc } from '../helpers/rpc';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// A move to added / sent through the admin forms, with POLYGON_RPC_URL pointing at a chain-137
// JSON-RPC on loopback (tests/helpers/rpc.ts), and without it; on the built server, without JavaScript.
const admin = testAccount('admin');
const secret = newSecret();

describe.each(engines)('tx hashes checked on chain 137 through the admin forms on %s', (engine) => {
	const hashes = {
		success: randomTxHash(),
		success2: randomTxHash(),
		reverted: randomTxHash(),
		pending: randomTxHash(),
		unknown: randomTxHash()
	};
	let rpc: FakeRpc;
	let hook: Receiver;
	let checked: RunningServer;
	let unchecked: RunningServer;
	let direct: DatabaseHandle | undefined;
	let drop: (() => Promise<void>) | undefined;

	beforeAll(async () => {
		rpc = await startFakeRpc({
			transactions: {
				[hashes.success]: 'success',
				[hashes.success2]: 'success',
				[hashes.reverted]: 'reverted',
				[hashes.pending]: 'pending'
			}
		});
		hook = await new Receiver().start();
		const env: Record<string, string> = { ADMIN_ADDRESSES: admin.address };
		if (engine === 'postgres') {
			const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, { prefix: 'portal_txcheck' });
			env.DATABASE_URL = database.url;
			direct = createDb({ databaseUrl: database.url, pgliteDataDir: '' }, { max: 2 });
			drop = database.drop;
		}
		[checked, unchecked] = await Promise.all([
			startServer({ env: { ...env, POLYGON_RPC_URL: rpc.url, WEBHOOK_URLS: hook.url, WEBHOOK_SECRET: secret } }),
			startServer({ env })
		]);
	});
	afterAll(async () => {
		await Promise.all([checked?.stop(), unchecked?.stop(), hook?.stop(), rpc?.close()]);
		await direct?.close();
		await drop?.();
	});

	/** A new member's application, approved by the admin through the application's page. */
	async function approvedApplication(base: string, cookie: string) {
		const member = privateKeyToAccount(generatePrivateKey());
		const memberCookie = await signIn(base, member);
		const applied = await postForm(
			`${base}/apply`,
			{ displayName: 'Tess Tx', motivation: 'Chains' },
			{ cookie: memberCookie }
		);
		expect(applied.status).toBe(303);
		const table = await getPage(`${base}/admin?sort=newest&q=${member.address}`, cookie);
		const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(table.body)![1]!;
		const approved = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'review', to: 'approved', confirm: 'yes' },
			{ cookie }
		);
		expect(approved.status).toBe(303);
		return id;
	}
	const pageText = async (base: string, id: string, cookie: string) =>
		textOf((await getPage(`${base}/admin/applications/${id}`, cookie)).body);
	/** The audit rows of `id` as the Postgres server holds them (postgres only). */
	const auditRows = async (id: string) =>
		(
			await direct!.db
				.select()
				.from(applicationEvents)
				.where(eq(applicationEvents.applicationId, id))
				.orderBy(asc(applicationEvents.id))
		).map((r) => ({ to: r.toState, txHash: r.txHash, txVerified: r.txVerified }));
	const lookedUp = (hash: string) => rpc.calls.some((c) => c.params[0] === hash);

	it('a successful transaction: recorded and shown verified, from the table and from the application page', async () => {
		const base = checked.url;
		const cookie = await signIn(base, admin);
		const id = await approvedApplication(base, cookie);

		const fromTable = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'allowlist', from: 'pending', to: 'added', txHash: hashes.success },
			{ cookie }
		);
		expect(fromTable.status).toBe(303);
		const fromPage = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'distribution', to: 'sent', confirm: 'yes', txHash: hashes.success2.toUpperCase().replace('0X', '0x') },
			{ cookie }
		);
		expect(fromPage.status).toBe(303);
		const text = textOf((await getPage(base + fromPage.location!, cookie)).body);
		expect(text).toContain('Recorded tokens sent to Tess Tx. Tx hash verified on chain 137.');
		for (const hash of [hashes.success, hashes.success2]) {
			expect(text).toMatch(
				new RegExp(`Transaction: ${hash} \\(opens Polygonscan in a new tab\\) \\(verified on chain 137\\)`)
			);
			expect(lookedUp(hash)).toBe(true);
		}
		if (direct)
			expect(await auditRows(id)).toEqual([
				{ to: 'approved', txHash: null, txVerified: null },
				{ to: 'added', txHash: hashes.success, txVerified: true },
				{ to: 'sent', txHash: hashes.success2, txVerified: true }
			]);
	});

	it('a reverted or unknown transaction: 400 on txHash saying which; nothing recorded, no event sent', async () => {
		const base = checked.url;
		const cookie = await signIn(base, admin);
		const id = await approvedApplication(base, cookie);

		const reverted = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'allowlist', from: 'pending', to: 'added', txHash: hashes.reverted },
			{ cookie }
		);
		expect(reverted.status).toBe(400);
		expect(textOf(reverted.body)).toContain('This transaction reverted on chain 137 (Polygon)');
		const unknown = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'distribution', to: 'sent', confirm: 'yes', txHash: hashes.unknown },
			{ cookie }
		);
		expect(unknown.status).toBe(400);
		expect(textOf(unknown.body)).toContain('Chain 137 (Polygon) does not know this transaction hash.');
		// The refused form keeps what the admin typed, to correct it.
		expect(unknown.body).toContain(`value="${hashes.unknown}"`);
		expect(lookedUp(hashes.reverted) && lookedUp(hashes.unknown)).toBe(true);

		const text = await pageText(base, id, cookie);
		expect(text).toMatch(/Allowlist: Waiting to be added .*Token distribution: Waiting to be sent/);
		// The submission and the approval (the history starts with the submission).
		expect(text).toMatch(/History \(2\)/);
		expect(text).not.toContain(hashes.reverted);

		// A later move's event arrives; none was written for the refused ones.
		const failed = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'allowlist', to: 'failed', reason: 'Gas' },
			{ cookie }
		);
		expect(failed.status).toBe(303);
		const mine = () =>
			hook.received
				.map((r) => verified(secret, r))
				.filter((e) => e.type === 'application.transitioned' && e.data.applicationId === id);
		await hook.until(() => mine().some((e) => e.data.to === 'failed'));
		await new Promise((r) => setTimeout(r, 1_000));
		// Delivery keeps no order between events: compare as a set.
		expect(
			mine()
				.map((e) => String(e.data.to))
				.sort()
		).toEqual(['approved', 'failed']);
		if (direct) {
			expect((await auditRows(id)).map((r) => r.to)).toEqual(['approved', 'failed']);
			const outbox = await direct.db
				.select({ type: webhookDeliveries.eventType })
				.from(webhookDeliveries)
				.where(sql`${webhookDeliveries.data}->>'applicationId' = ${id}`)
				.orderBy(asc(webhookDeliveries.id));
			expect(outbox.map((r) => r.type)).toEqual([
				'application.submitted',
				'application.transitioned',
				'application.transitioned'
			]);
		}
	});

	it('a bulk move looks the batch hash up once: reverted refuses the whole batch, a success is recorded verified on each', async () => {
		const base = checked.url;
		const cookie = await signIn(base, admin);
		const ids = [await approvedApplication(base, cookie), await approvedApplication(base, cookie)];
		const move = { applicationIds: ids, field: 'allowlist', from: 'pending', to: 'added', confirm: 'yes' };

		const reverted = await postForm(`${base}/admin?/bulk`, { ...move, txHash: hashes.reverted }, { cookie });
		expect(reverted.status).toBe(400);
		expect(textOf(reverted.body)).toContain('This transaction reverted on chain 137 (Polygon)');
		for (const id of ids) expect(await pageText(base, id, cookie)).toMatch(/Allowlist: Waiting to be added/);

		// One on-chain transaction for the whole batch.
		const hash = randomTxHash();
		rpc.transactions.set(hash.toLowerCase(), 'success');
		const done = await postForm(`${base}/admin?/bulk`, { ...move, txHash: hash }, { cookie });
		expect(done.status).toBe(303);
		for (const id of ids) {
			const text = await pageText(base, id, cookie);
			expect(text).toMatch(/Allowlist: added/);
			expect(text).toContain(`${hash} (opens Polygonscan in a new tab) (verified on chain 137)`);
		}
		if (direct)
			for (const id of ids)
				expect((await auditRows(id)).at(-1)).toEqual({ to: 'added', txHash: hash, txVerified: true });
	});

	it('a pending transaction (known, no receipt yet): recorded and shown unverified', async () => {
		const base = checked.url;
		const cookie = await signIn(base, admin);
		const id = await approvedApplication(base, cookie);
		const moved = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'allowlist', to: 'added', confirm: 'yes', txHash: hashes.pending },
			{ cookie }
		);
		expect(moved.status).toBe(303);
		const text = textOf((await getPage(base + moved.location!, cookie)).body);
		expect(text).toContain('Recorded Tess Tx as added to the allowlist. Tx hash unverified.');
		expect(text).toMatch(new RegExp(`${hashes.pending} \\(opens Polygonscan in a new tab\\) \\(unverified\\)`));
		if (direct) expect((await auditRows(id))[1]).toEqual({ to: 'added', txHash: hashes.pending, txVerified: null });
	});

	it('an endpoint that does not answer: after 5 s the move is recorded and shown unverified', async () => {
		const base = checked.url;
		const cookie = await signIn(base, admin);
		const id = await approvedApplication(base, cookie);
		rpc.silent = true;
		try {
			const started = Date.now();
			const moved = await postForm(
				`${base}/admin?/transition`,
				{ applicationId: id, field: 'distribution', from: 'pending', to: 'sent', txHash: hashes.success },
				{ cookie }
			);
			const took = Date.now() - started;
			expect(moved.status).toBe(303);
			expect(took).toBeGreaterThanOrEqual(4_900);
			expect(took).toBeLessThan(9_000);
		} finally {
			rpc.silent = false;
		}
		const text = await pageText(base, id, cookie);
		expect(text).toMatch(/Token distribution: sent/);
		expect(text).toMatch(new RegExp(`${hashes.success} \\(opens Polygonscan in a new tab\\) \\(unverified\\)`));
		if (direct) expect((await auditRows(id))[1]).toEqual({ to: 'sent', txHash: hashes.success, txVerified: null });
	});

	it('without POLYGON_RPC_URL nothing is looked up: recorded, and shown as not checked', async () => {
		const base = unchecked.url;
		const cookie = await signIn(base, admin);
		const id = await approvedApplication(base, cookie);
		const hash = randomTxHash();
		const moved = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'allowlist', to: 'added', confirm: 'yes', txHash: hash },
			{ cookie }
		);
		expect(moved.status).toBe(303);
		const text = textOf((await getPage(base + moved.location!, cookie)).body);
		expect(text).toContain('Recorded Tess Tx as added to the allowlist. Tx hash not checked.');
		expect(text).toMatch(new RegExp(`${hash} \\(opens Polygonscan in a new tab\\) \\(not checked\\)`));
		expect(lookedUp(hash)).toBe(false);
		if (direct) expect((await auditRows(id))[1]).toEqual({ to: 'added', txHash: hash, txVerified: null });
	});
});
