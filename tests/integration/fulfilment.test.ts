import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { batchDownload } from '../../src/lib/server/chain/batch-download';
import { recordFound } from '../../src/lib/server/chain/record-found';
import { waitingFor } from '../../src/lib/server/chain/steps';
import { reconcile, type StepReport } from '../../src/lib/server/chain/reconcile';
import { consumeCost } from '../../src/lib/server/platform/rate-limit';
import { loadConfig, type Config } from '../../src/lib/server/platform/config';
import { applicationEvents, webhookDeliveries } from '../../src/lib/server/db/schema';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { webhooksTo } from '../helpers/outbox';
import { startFulfilmentChain, type FulfilmentChain } from '../helpers/fulfilment-chain';
import { addMember, adminMember, applicationById, eventsOf, seedApplication } from '../helpers/members';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';

// Reconcile against a real EVM: ganache on chain 137 with a Safe 1.4.1 treasury, a token it holds and
// an allowlist it owns (tests/helpers/fulfilment-chain.ts). The batch files are executed through the
// Safe as Safe{Wallet} executes a Transaction Builder batch; reconcile then reads the chain.
const GRANT = 100n * 10n ** 18n;
const base = { SESSION_PASSWORD: randomBytes(32).toString('base64'), SIWE_ALLOWED_DOMAINS: 'portal.example' };

describe.each(engines)('fulfilment without a key on %s', (engine) => {
	let t: TestDatabase;
	let chain: FulfilmentChain;
	let proxy: RpcProxy;
	let config: Config;
	const admin = adminMember();
	// Webhooks on: the moves reconcile records write their events.
	const outbox = webhooksTo('https://hooks.example/portal');

	beforeAll(async () => {
		[t, chain] = await Promise.all([createTestDatabase(engine), startFulfilmentChain()]);
		// Like many public endpoints, ranges wider than 4 blocks are refused: reconcile must halve its chunks.
		proxy = await startRpcProxy(chain.chain.url, 4);
		config = loadConfig({ ...base, ...chain.env(GRANT), POLYGON_RPC_URL: proxy.url });
	}, 60_000);
	afterAll(async () => {
		await Promise.all([t?.drop(), proxy?.close(), chain?.close()]);
	});

	/** A member's application, approved by the admin as the review table does. */
	async function approved(address = privateKeyToAccount(generatePrivateKey()).address.toLowerCase()) {
		const member = await addMember(t.db, address);
		const app = await seedApplication(t.db, member.address);
		const moved = await transitionApplication(t.db, outbox, null, admin, {
			applicationId: app.id,
			field: 'review',
			to: 'approved'
		});
		expect(moved.ok).toBe(true);
		return app;
	}

	async function batch(step: 'allowlist' | 'distribution', ids: string[]) {
		const params = new URLSearchParams(ids.map((id) => ['ids', id]));
		const outcome = await batchDownload(t.db, config, step, params);
		if (!outcome.ok) throw new Error(outcome.message);
		return outcome.file;
	}

	const reportOf = async (step: unknown, options = { chunk: 1_000 }) => {
		const outcome = await reconcile(t.db, config, outbox, admin, { step }, options);
		if (!outcome.ok) throw new Error(outcome.message);
		return outcome.value;
	};
	const foundIds = (reports: StepReport[], step: string) =>
		reports.find((r) => r.step === step)!.found.map((f) => f.id);

	it('the Safe executes both batch files; one reconcile records every step with the Safe transaction hash, its audit row and webhook', async () => {
		const apps = [await approved(), await approved(), await approved()];
		const ids = apps.map((a) => a.id);
		// One was recorded failed by hand before (a first attempt): found on chain, it still moves to added.
		await transitionApplication(t.db, outbox, null, admin, {
			applicationId: ids[2],
			field: 'allowlist',
			to: 'failed',
			reason: 'gas'
		});

		const allowlistFile = await batch('allowlist', ids);
		expect(allowlistFile.transactions).toHaveLength(1);
		const distributionFile = await batch('distribution', ids);
		expect(distributionFile.transactions).toHaveLength(3);
		await chain.mine(30); // blocks between the approvals and the batches: more than one chunk to scan
		const allowlistTx = await chain.execute(allowlistFile.transactions);
		const distributionTx = await chain.execute(distributionFile.transactions);
		expect([allowlistTx.status, distributionTx.status]).toEqual(['success', 'success']);

		proxy.reset();
		const reports = await reportOf(['allowlist', 'distribution']);
		expect(foundIds(reports, 'allowlist').sort()).toEqual([...ids].sort());
		expect(foundIds(reports, 'distribution').sort()).toEqual([...ids].sort());
		// The endpoint refused the first chunk (1,000 blocks, or the whole range when shorter); the scan
		// halved it until a chunk passed (2 to 4 blocks) and kept that chunk: every block scanned once per
		// step, about one eth_getLogs per chunk, never one per application or per block. (How many blocks
		// there are depends on how fast the chain mined, so the bounds are computed from the reports.)
		const width = ([from, to]: [bigint, bigint]) => Number(to - from + 1n);
		const blocks = reports.map((r) => width([BigInt(r.fromBlock), BigInt(r.toBlock)]));
		expect(width(proxy.logRanges[0]!)).toBe(Math.min(1_000, blocks[0]!));
		const refused = proxy.logRanges.filter((r) => width(r) > 4);
		const accepted = proxy.logRanges.filter((r) => width(r) <= 4);
		expect(refused.length).toBeGreaterThanOrEqual(2);
		expect(refused.length).toBeLessThanOrEqual(2 * 10); // halvings from 1,000 to 4 or fewer, per step
		expect(accepted.reduce((n, r) => n + width(r), 0)).toBe(blocks[0]! + blocks[1]!);
		expect(accepted.length).toBeLessThanOrEqual(blocks.reduce((n, b) => n + Math.ceil(b / 2), 0));
		expect(proxy.counts.get('eth_getLogs')).toBe(refused.length + accepted.length);
		expect(proxy.counts.get('eth_getTransactionReceipt') ?? 0).toBe(0);

		for (const app of apps) {
			const row = (await applicationById(t.db, app.id))!;
			expect([row.allowlist, row.distribution]).toEqual(['added', 'sent']);
			const events = (await eventsOf(t.db, app.id)).filter((e) => e.reason === 'found on chain');
			expect(events.map((e) => [e.field, e.toState, e.txHash, e.txVerified, e.executorAddress])).toEqual([
				['allowlist', 'added', allowlistTx.hash.toLowerCase(), true, admin.address],
				['distribution', 'sent', distributionTx.hash.toLowerCase(), true, admin.address]
			]);
		}
		const hooks = await t.db
			.select()
			.from(webhookDeliveries)
			.where(sql`${webhookDeliveries.data}->>'reason' = 'found on chain'`);
		expect(hooks).toHaveLength(6);

		// Idempotent: a second run records nothing new.
		const before = await t.db.select({ n: sql<number>`count(*)::int` }).from(applicationEvents);
		const again = await reportOf(['allowlist', 'distribution']);
		expect(again.flatMap((r) => r.found)).toEqual([]);
		const after = await t.db.select({ n: sql<number>`count(*)::int` }).from(applicationEvents);
		expect(after[0]!.n).toBe(before[0]!.n);
	});

	it('a transfer to someone else, a smaller amount, a reverted batch or a transfer before the approval settles nothing', async () => {
		const early = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as `0x${string}`;
		const transfer = (to: string, amount: bigint) => ({
			to: chain.token,
			value: '0',
			data: `0xa9059cbb${to.slice(2).padStart(64, '0')}${amount.toString(16).padStart(64, '0')}` as `0x${string}`
		});
		// Before its approval: a transfer to this applicant (ganache's blocks are stamped in seconds).
		expect((await chain.execute([transfer(early, GRANT)])).status).toBe('success');
		await new Promise((r) => setTimeout(r, 1_100));
		const [other, smaller, reverted, before] = [
			await approved(),
			await approved(),
			await approved(),
			await approved(early)
		];

		const stranger = privateKeyToAccount(generatePrivateKey()).address;
		expect((await chain.execute([transfer(stranger, GRANT)])).status).toBe('success');
		expect((await chain.execute([transfer(smaller.applicantAddress, GRANT - 1n)])).status).toBe('success');
		// More than the treasury holds: the token reverts, so the Safe's whole transaction reverts.
		const failed = await chain.execute([
			transfer(reverted.applicantAddress, GRANT),
			transfer(stranger, chain.supply * 2n)
		]);
		expect(failed.status).toBe('reverted');

		const reports = await reportOf('distribution');
		const report = reports[0]!;
		expect(report.found).toEqual([]);
		const waiting = report.waiting.map((w) => w.id);
		for (const app of [other, smaller, reverted, before]) {
			expect(waiting).toContain(app.id);
			expect((await applicationById(t.db, app.id))!.distribution).toBe('pending');
		}
	});

	it('an application recorded by hand after the chain was read is left out; the rest are recorded in the same run', async () => {
		const [byHand, other] = [await approved(), await approved()];
		const waiting = await waitingFor(t.db, 'allowlist', { ids: [byHand.id, other.id] });
		const hash = `0x${'ab'.repeat(32)}` as const;
		await transitionApplication(t.db, outbox, null, admin, {
			applicationId: byHand.id,
			field: 'allowlist',
			to: 'added',
			txHash: hash
		});
		const settled = waiting.map((w) => ({ applicationId: w.id, txHash: hash, blockNumber: 1n }));
		const [result] = await recordFound(t.db, outbox, admin, [{ step: 'allowlist', settled, waiting }]);
		expect(result!.recorded.map((r) => r.applicationId)).toEqual([other.id]);
		expect((await eventsOf(t.db, byHand.id)).filter((e) => e.field === 'allowlist')).toHaveLength(1);
		expect((await eventsOf(t.db, other.id)).at(-1)).toMatchObject({ reason: 'found on chain', toState: 'added' });
	});

	it('the limit counts one transition per application moved: with two left of 120, the two oldest found are recorded and the third waits', async () => {
		const apps = [await approved(), await approved(), await approved()];
		const file = await batch(
			'allowlist',
			apps.map((a) => a.id)
		);
		expect((await chain.execute(file.transactions)).status).toBe('success');
		const busy = adminMember();
		expect((await consumeCost(t.db, busy.address, 'transitionApplication', 118)).ok).toBe(true);
		const outcome = await reconcile(t.db, config, outbox, busy, { step: 'allowlist' }, { chunk: 1_000 });
		if (!outcome.ok) throw new Error(outcome.message);
		expect(outcome.value[0]!.found.map((f) => f.id)).toEqual([apps[0]!.id, apps[1]!.id]);
		expect(outcome.value[0]!.waiting.map((w) => w.id)).toContain(apps[2]!.id);
		expect(await reconcile(t.db, config, outbox, busy, { step: 'allowlist' }, { chunk: 1_000 })).toMatchObject({
			ok: false,
			status: 429
		});
		expect((await applicationById(t.db, apps[2]!.id))!.allowlist).toBe('pending');
	});

	it('a missing setting is a 400 naming it, and a step that is not one is a 400', async () => {
		const bare = loadConfig({ ...base, ...chain.env(GRANT), POLYGON_RPC_URL: '', ALLOWLIST_EVENT: '' });
		const refused = await reconcile(t.db, bare, outbox, admin, { step: 'allowlist' });
		expect(refused).toMatchObject({ ok: false, status: 400 });
		const message = JSON.stringify(refused);
		expect(message).toContain('POLYGON_RPC_URL');
		expect(message).toContain('ALLOWLIST_EVENT');
		for (const step of [undefined, 'review', ['allowlist', 'allowlist', 'distribution'], '__proto__'])
			expect(await reconcile(t.db, config, outbox, admin, { step })).toMatchObject({ ok: false, status: 400 });
		const noToken = loadConfig({ ...base, ...chain.env(GRANT), TOKEN_GRANT_AMOUNT: '' });
		const download = await batchDownload(t.db, noToken, 'distribution', new URLSearchParams());
		expect(download).toMatchObject({ ok: false, status: 400, code: 'not_configured' });
		expect(JSON.stringify(download)).toContain('TOKEN_GRANT_AMOUNT');
	});

	it('a batch names only waiting applications: an unknown or settled id, or a malformed one, is a 400', async () => {
		const app = await approved();
		const settled = (await t.db.select().from(applicationEvents).where(eq(applicationEvents.toState, 'added')))[0]!;
		for (const ids of [[settled.applicationId], ['not-a-uuid'], [crypto.randomUUID()], Array(101).fill(app.id)]) {
			const params = new URLSearchParams(ids.map((id: string) => ['ids', id]));
			expect(await batchDownload(t.db, config, 'allowlist', params)).toMatchObject({ ok: false, status: 400 });
		}
		const file = await batch('allowlist', [app.id]);
		expect(file.meta.createdFromSafeAddress.toLowerCase()).toBe(chain.safe.toLowerCase());
		expect(file.chainId).toBe('137');
		expect(file.transactions[0]!.contractInputsValues).toEqual({ accounts: `[${getAddress(app.applicantAddress)}]` });
	});
});
