import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { applicationEvents, webhookDeliveries } from '../../src/lib/server/db/schema';
import { REVERTED_TX, UNKNOWN_TX, verifyTxHash } from '../../src/lib/server/applications/tx-verify';
import { rpcEndpoint } from '../../src/lib/server/platform/endpoints';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { webhooksTo } from '../helpers/outbox';
import { addMember, adminMember, applicationById, randomTxHash, seedApplication } from '../helpers/members';
import { startFakeRpc, type FakeRpc } from '../helpers/rpc';

// verifyTxHash against a JSON-RPC endpoint on loopback that plays chain 137 (tests/helpers/rpc.ts).
const hashes = { success: randomTxHash(), reverted: randomTxHash(), pending: randomTxHash(), unknown: randomTxHash() };
let rpc: FakeRpc;
beforeAll(async () => {
	rpc = await startFakeRpc({
		transactions: { [hashes.success]: 'success', [hashes.reverted]: 'reverted', [hashes.pending]: 'pending' }
	});
});
afterEach(() => {
	rpc.silent = false;
});
/** POLYGON_RPC_URL on the fake chain, as startRuntime builds it (runtime().chain.polygon). */
const chain137 = () => rpcEndpoint(rpc.url);
afterAll(() => rpc?.close());

const lookups = (hash: string) =>
	rpc.calls.filter((c) => c.method.startsWith('eth_getTransaction') && c.params[0] === hash).map((c) => c.method);

describe('verifyTxHash', () => {
	it('without POLYGON_RPC_URL looks nothing up: not verified, not refused', async () => {
		const before = rpc.calls.length;
		expect(await verifyTxHash(null, hashes.unknown)).toEqual({
			ok: true,
			value: { verified: null, unverified: 'not_configured' }
		});
		expect(rpc.calls.length).toBe(before);
	});

	it('a successful transaction is verified by its receipt alone', async () => {
		expect(await verifyTxHash(chain137(), hashes.success)).toEqual({ ok: true, value: { verified: true } });
		expect(lookups(hashes.success)).toEqual(['eth_getTransactionReceipt']);
		expect(rpc.calls.some((c) => c.method === 'eth_chainId')).toBe(true);
	});

	it('a reverted transaction is refused, saying it reverted', async () => {
		expect(await verifyTxHash(chain137(), hashes.reverted)).toEqual({
			ok: false,
			code: 'tx_reverted',
			message: REVERTED_TX
		});
		expect(REVERTED_TX).toMatch(/reverted on chain 137/);
	});

	it('a hash the chain does not know (no receipt, no transaction) is refused, saying so', async () => {
		expect(await verifyTxHash(chain137(), hashes.unknown)).toEqual({
			ok: false,
			code: 'tx_unknown',
			message: UNKNOWN_TX
		});
		expect(lookups(hashes.unknown)).toEqual(['eth_getTransactionReceipt', 'eth_getTransactionByHash']);
		expect(UNKNOWN_TX).toMatch(/does not know this transaction hash/);
	});

	it('a known transaction without a receipt yet (pending) is recorded unverified', async () => {
		expect(await verifyTxHash(chain137(), hashes.pending)).toEqual({
			ok: true,
			value: { verified: null, unverified: 'pending' }
		});
	});

	it('an endpoint that never answers: unverified after 5 seconds, not before, not much later', async () => {
		rpc.silent = true;
		const started = Date.now();
		expect(await verifyTxHash(chain137(), hashes.success)).toEqual({
			ok: true,
			value: { verified: null, unverified: 'no_answer' }
		});
		const took = Date.now() - started;
		expect(took).toBeGreaterThanOrEqual(4_900);
		expect(took).toBeLessThan(6_500);
	}, 15_000);

	it('an RPC error or an endpoint that is not JSON-RPC: unverified at once, never refused', async () => {
		const broken = createServer((_, res) => res.writeHead(502).end('bad gateway'));
		await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
		try {
			const started = Date.now();
			expect(
				await verifyTxHash(rpcEndpoint(`http://127.0.0.1:${(broken.address() as AddressInfo).port}`), hashes.unknown)
			).toEqual({
				ok: true,
				value: { verified: null, unverified: 'no_answer' }
			});
			expect(Date.now() - started).toBeLessThan(2_000);
		} finally {
			broken.close();
		}
	});

	it('an endpoint that serves another chain is not asked about the hash: unverified, never refused', async () => {
		const mainnet = await startFakeRpc({ chainId: 1 });
		try {
			expect(await verifyTxHash(rpcEndpoint(mainnet.url), hashes.unknown)).toEqual({
				ok: true,
				value: { verified: null, unverified: 'no_answer' }
			});
			expect(mainnet.calls.map((c) => c.method)).toEqual(['eth_chainId']);
		} finally {
			await mainnet.close();
		}
	});
});

describe.each(engines)('transitionApplication with tx checks on %s', (engine) => {
	let t: TestDatabase;
	// Webhooks on, so that a refusal can be seen to write no outbox row either.
	const outbox = webhooksTo('https://hooks.example/portal');
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(async () => {
		await t?.drop();
	});

	async function approved() {
		const member = await addMember(t.db);
		return seedApplication(t.db, member.address, { review: 'approved' });
	}
	const outboxRows = async () => (await t.db.select().from(webhookDeliveries)).length;
	const auditOf = (id: string) => t.db.select().from(applicationEvents).where(eq(applicationEvents.applicationId, id));

	it('added with a successful transaction: recorded with tx_verified true', async () => {
		const app = await approved();
		const result = await transitionApplication(t.db, outbox, chain137(), adminMember(), {
			applicationId: app.id,
			field: 'allowlist',
			to: 'added',
			txHash: hashes.success
		});
		expect(result).toMatchObject({ ok: true, value: { event: { txHash: hashes.success, txVerified: true } } });
		expect(await auditOf(app.id)).toMatchObject([{ toState: 'added', txVerified: true }]);
	});

	it.each([
		['reverted', REVERTED_TX],
		['unknown', UNKNOWN_TX]
	] as const)('sent with a %s transaction: 400 on txHash, nothing written', async (kind, message) => {
		const app = await approved();
		const before = await outboxRows();
		const result = await transitionApplication(t.db, outbox, chain137(), adminMember(), {
			applicationId: app.id,
			field: 'distribution',
			to: 'sent',
			txHash: hashes[kind]
		});
		expect(result).toEqual({
			ok: false,
			status: 400,
			code: 'invalid_request',
			message: 'Some fields need attention.',
			errors: { txHash: message }
		});
		expect((await applicationById(t.db, app.id))!.distribution).toBe('pending');
		expect(await auditOf(app.id)).toEqual([]);
		expect(await outboxRows()).toBe(before);
	});

	it('a pending transaction, or no POLYGON_RPC_URL: recorded with tx_verified null', async () => {
		const pending = await approved();
		expect(
			await transitionApplication(t.db, outbox, chain137(), adminMember(), {
				applicationId: pending.id,
				field: 'distribution',
				to: 'sent',
				txHash: hashes.pending
			})
		).toMatchObject({ ok: true });
		const unchecked = await approved();
		expect(
			await transitionApplication(t.db, outbox, null, adminMember(), {
				applicationId: unchecked.id,
				field: 'allowlist',
				to: 'added',
				txHash: hashes.unknown
			})
		).toMatchObject({ ok: true });
		expect(await auditOf(pending.id)).toMatchObject([{ txHash: hashes.pending, txVerified: null }]);
		expect(await auditOf(unchecked.id)).toMatchObject([{ txHash: hashes.unknown, txVerified: null }]);
	});

	it('a move to failed records its tx hash (if any) unchecked: a failed step may well have reverted', async () => {
		const app = await approved();
		const before = rpc.calls.length;
		const result = await transitionApplication(t.db, outbox, chain137(), adminMember(), {
			applicationId: app.id,
			field: 'allowlist',
			to: 'failed',
			reason: 'Out of gas',
			txHash: hashes.reverted
		});
		expect(result).toMatchObject({ ok: true, value: { event: { txHash: hashes.reverted, txVerified: null } } });
		expect(rpc.calls.length).toBe(before);
	});
});
