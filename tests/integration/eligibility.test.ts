import { eq } from 'drizzle-orm';
import { applications } from '../../src/lib/server/db/schema';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { writeFormVersion } from '../../src/lib/server/forms/save-version';
import { forgetCurrentForm } from '../../src/lib/server/forms/versions';
import { saveEligibility } from '../../src/lib/server/eligibility/save-rules';
import { checkEligibilityAgain } from '../../src/lib/server/eligibility/evidence';
import { checkEligibility, forgetEligibilityCaches, previewEligibility } from '../../src/lib/server/eligibility/check';
import { rpcEndpoint } from '../../src/lib/server/platform/endpoints';
import { parseTableQuery, reviewTable } from '../../src/lib/server/applications/review-table';
import { eligibilityStartProblem } from '../../src/lib/server/eligibility/startup';
import { emptyRule, type DraftEligibility } from '../../src/lib/eligibility/draft';
import type { EligibilityRules } from '../../src/lib/eligibility/rules';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { startEligibilityChain, type EligibilityChain } from '../helpers/eligibility-chain';
import { addMember, adminMember, applicationById, countRows, randomAddress } from '../helpers/members';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { startFakeRpc } from '../helpers/rpc';

// Eligibility on chain against a real EVM: ganache on chain 137 with OpenZeppelin's ERC-20/721/1155
// compiled with solc, a Safe, and Multicall3 at its canonical address (tests/helpers/eligibility-chain.ts).
// The portal reads the chain through a counting proxy (tests/helpers/rpc-proxy.ts).
const COMM = 10n ** 18n;
const good = { displayName: 'Ada', motivation: 'I build things.', contact: '' };

describe.each(engines)('eligibility on chain on %s', (engine) => {
	let t: TestDatabase;
	let evm: EligibilityChain;
	let proxy: RpcProxy;
	const admin = adminMember();

	beforeAll(async () => {
		[t, evm] = await Promise.all([createTestDatabase(engine), startEligibilityChain()]);
		proxy = await startRpcProxy(evm.chain.url);
	}, 120_000);
	afterAll(async () => {
		await Promise.all([t?.drop(), proxy?.close(), evm?.close()]);
	});
	/** POLYGON_RPC_URL through the counting proxy, as startRuntime builds it (runtime().chain.polygon), with a 2 s budget. */
	const chain = () => rpcEndpoint(proxy.url, 2_000);
	beforeEach(async () => {
		forgetEligibilityCaches();
		await evm.setMulticall3(true);
	});

	/** "Hold at least 100 COMM or one Membership NFT" (the example), saved as a form version. */
	async function requireCommOrNft(mode: 'any' | 'all' = 'any'): Promise<EligibilityRules> {
		const rules: EligibilityRules = {
			mode,
			rules: [
				{
					kind: 'erc20',
					token: evm.coin.toLowerCase() as `0x${string}`,
					min: String(100n * COMM),
					label: 'Hold 100 COMM'
				},
				{ kind: 'erc721', contract: evm.nft.toLowerCase() as `0x${string}`, min: 1 }
			]
		};
		await writeFormVersion(t.db, admin, { eligibility: rules });
		return rules;
	}

	const rowCount = async (address: string) =>
		(await t.db.select().from(applications).where(eq(applications.applicantAddress, address))).length;

	it('a holder applies in one go: the evidence names the block and what each rule saw', async () => {
		await requireCommOrNft();
		const member = await addMember(t.db);
		await evm.giveCoin(member.address as `0x${string}`, 150n * COMM);
		const head = await evm.chain.client.getBlockNumber({ cacheTime: 0 });
		const result = await submitApplication(t.db, OUTBOX_OFF, member, good, {}, { polygon: chain() });
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		const row = (await applicationById(t.db, result.value.application.id))!;
		expect(row.eligibility).toMatchObject({
			block: Number(head),
			ok: true,
			results: [
				{ rule: 0, held: String(150n * COMM), ok: true },
				{ rule: 1, held: '0', ok: false }
			]
		});
		expect(new Date(row.eligibility!.checkedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
	});

	it('a non-holder gets 403 with what each rule needs and what the address holds; nothing is written', async () => {
		await requireCommOrNft();
		const member = await addMember(t.db);
		await evm.giveCoin(member.address as `0x${string}`, 12n * COMM);
		const before = await countRows(t.db, 'applications');
		const result = await submitApplication(t.db, OUTBOX_OFF, member, good, {}, { polygon: chain() });
		expect(result.ok).toBe(false);
		if (result.ok || result.code !== 'not_eligible') throw new Error(`expected 403, got ${JSON.stringify(result)}`);
		expect(result.code).toBe('not_eligible');
		expect(result.eligibility.lines).toEqual([
			{ need: 'Hold 100 COMM', held: '12 COMM', ok: false },
			{
				need: `Hold at least 1 NFT of ERC-721 ${evm.nft.toLowerCase().slice(0, 6)}…${evm.nft.toLowerCase().slice(-4)}`,
				held: '0 NFTs',
				ok: false
			}
		]);
		expect(result.message).toContain('Hold 100 COMM: you hold 12 COMM (not enough)');
		expect(await countRows(t.db, 'applications')).toBe(before);
		expect(await countRows(t.db, 'application_events')).toBe(0);
	});

	it('any: one rule is enough; all: every rule is needed', async () => {
		const nftOnly = await addMember(t.db);
		await evm.mintNft(nftOnly.address as `0x${string}`);
		await requireCommOrNft('all');
		const refused = await submitApplication(t.db, OUTBOX_OFF, nftOnly, good, {}, { polygon: chain() });
		expect(refused.ok ? 200 : refused.status).toBe(403);
		await requireCommOrNft('any');
		const taken = await submitApplication(t.db, OUTBOX_OFF, nftOnly, good, {}, { polygon: chain() });
		expect(taken.ok).toBe(true);
	});

	it('an ERC-1155 token id balance is read for that id alone', async () => {
		const rules: EligibilityRules = {
			mode: 'all',
			rules: [{ kind: 'erc1155', contract: evm.badges.toLowerCase() as `0x${string}`, id: '7', min: 2 }]
		};
		const holder = randomAddress();
		await evm.mintBadge(holder as `0x${string}`, 7n, 2n);
		await evm.mintBadge(holder as `0x${string}`, 8n, 5n);
		const answer = await checkEligibility(chain(), holder, rules);
		expect(answer.ok && answer.evidence.results).toEqual([{ rule: 0, held: '2', ok: true }]);
	});

	it('a Safe that holds the token applies with its own holdings', async () => {
		await requireCommOrNft();
		await evm.giveCoin(evm.safe, 100n * COMM);
		const safeMember = await addMember(t.db, evm.safe.toLowerCase());
		const result = await submitApplication(t.db, OUTBOX_OFF, safeMember, good, {}, { polygon: chain() });
		expect(result.ok).toBe(true);
		if (result.ok)
			expect(result.value.application.eligibility?.results[0]).toEqual({
				rule: 0,
				held: String(100n * COMM),
				ok: true
			});
	});

	it('with Multicall3 a five-rule check is one JSON-RPC request; without it, one block number then calls pinned to it', async () => {
		const five: EligibilityRules = {
			mode: 'all',
			rules: [
				{ kind: 'erc20', token: evm.coin.toLowerCase() as `0x${string}`, min: '1' },
				{ kind: 'erc721', contract: evm.nft.toLowerCase() as `0x${string}`, min: 1 },
				{ kind: 'erc1155', contract: evm.badges.toLowerCase() as `0x${string}`, id: '1', min: 1 },
				{ kind: 'erc1155', contract: evm.badges.toLowerCase() as `0x${string}`, id: '2', min: 1 },
				{ kind: 'erc20', token: evm.coin.toLowerCase() as `0x${string}`, min: String(10n ** 30n) }
			]
		};
		const holder = randomAddress();
		proxy.reset();
		const cold = await checkEligibility(chain(), holder, five);
		expect(cold.ok).toBe(true);
		// Cold: the chain id, the block and the token's decimals and symbol ride in the same eth_call.
		expect(Object.fromEntries(proxy.counts)).toEqual({ eth_call: 1 });
		proxy.reset();
		await checkEligibility(chain(), holder, five);
		expect(Object.fromEntries(proxy.counts)).toEqual({ eth_call: 1 });

		await evm.setMulticall3(false);
		forgetEligibilityCaches();
		proxy.reset();
		const fallback = await checkEligibility(chain(), holder, five);
		expect(fallback.ok).toBe(true);
		// The failed Multicall3 try, then eth_blockNumber, then the five calls and the token's two details, in parallel.
		expect(proxy.counts.get('eth_blockNumber')).toBe(1);
		expect(proxy.counts.get('eth_call')).toBe(1 + 5 + 2);
	});

	it('the RPC stopped mid-test: 503 eligibility_unavailable and nothing written', async () => {
		await requireCommOrNft();
		const member = await addMember(t.db);
		await evm.giveCoin(member.address as `0x${string}`, 100n * COMM);
		const down = await startRpcProxy(evm.chain.url);
		await down.close();
		const before = await countRows(t.db, 'applications');
		const result = await submitApplication(
			t.db,
			OUTBOX_OFF,
			member,
			good,
			{},
			{ polygon: rpcEndpoint(down.url, 2_000) }
		);
		expect(result.ok ? 200 : [result.status, result.code]).toEqual([503, 'eligibility_unavailable']);
		expect(await countRows(t.db, 'applications')).toBe(before);
		expect(await rowCount(member.address)).toBe(0);
	});

	it('an endpoint that never answers: 503 within the limit', async () => {
		await requireCommOrNft();
		const member = await addMember(t.db);
		const silent = await startFakeRpc();
		silent.silent = true;
		const started = Date.now();
		const result = await submitApplication(
			t.db,
			OUTBOX_OFF,
			member,
			good,
			{},
			{ polygon: rpcEndpoint(silent.url, 500) }
		);
		expect(result.ok ? 200 : result.status).toBe(503);
		expect(Date.now() - started).toBeLessThan(4_000);
		await silent.close();
	});

	it('an RPC that answers another chain id is refused at save and at start', async () => {
		const mainnet = await startFakeRpc({ chainId: 1 });
		const draft: DraftEligibility = {
			mode: 'all',
			rules: [{ ...emptyRule(), kind: 'erc20', contract: evm.coin, min: '100', unit: 'token' }]
		};
		const saved = await saveEligibility(t.db, rpcEndpoint(mainnet.url, 2_000), admin, draft);
		expect(saved.ok ? 200 : saved.status).toBe(400);
		if (!saved.ok && saved.status === 400) expect(saved.errors.rules).toMatch(/POLYGON_RPC_URL/);

		await requireCommOrNft();
		forgetCurrentForm(t.db);
		const problem = await eligibilityStartProblem(t.db, mainnet.url);
		expect(problem?.message).toMatch(/POLYGON_RPC_URL: serves chain 1, not 137/);
		expect((await eligibilityStartProblem(t.db, null))?.message).toMatch(/POLYGON_RPC_URL: required/);
		expect(await eligibilityStartProblem(t.db, proxy.url)).toBeNull();
		await mainnet.close();
	});

	it('saving rules without POLYGON_RPC_URL is refused naming it; tokens typed in COMM are kept in base units', async () => {
		const draft: DraftEligibility = {
			mode: 'any',
			rules: [
				{ ...emptyRule(), kind: 'erc20', contract: evm.coin, min: '100.5', unit: 'token', label: 'Hold 100 COMM' },
				{ ...emptyRule(), kind: 'erc721', contract: evm.nft, min: '1' }
			]
		};
		const refused = await saveEligibility(t.db, null, admin, draft);
		expect(!refused.ok && refused.status === 400 && refused.errors.rules).toMatch(/POLYGON_RPC_URL/);

		const saved = await saveEligibility(t.db, chain(), admin, draft);
		expect(saved.ok && saved.value.rules).toEqual({
			mode: 'any',
			rules: [
				{ kind: 'erc20', token: evm.coin.toLowerCase(), min: String(1005n * 10n ** 17n), label: 'Hold 100 COMM' },
				{ kind: 'erc721', contract: evm.nft.toLowerCase(), min: 1 }
			]
		});
		// An address with no token behind it is refused on its own field.
		const wrong = await saveEligibility(t.db, chain(), admin, {
			mode: 'all',
			rules: [{ ...emptyRule(), kind: 'erc721', contract: randomAddress(), min: '1' }]
		});
		expect(!wrong.ok && wrong.status === 400 && wrong.errors['rules.0.contract']).toMatch(/did not answer/);
	});

	it('"check again" after a transfer shows today’s holdings beside the evidence at submission', async () => {
		await requireCommOrNft();
		const key = privateKeyToAccount(generatePrivateKey());
		const member = await addMember(t.db, key.address.toLowerCase());
		await evm.giveCoin(key.address, 100n * COMM);
		const result = await submitApplication(t.db, OUTBOX_OFF, member, good, {}, { polygon: chain() });
		if (!result.ok) throw new Error(result.message);
		// After submitting, the member sends 60 COMM away.
		await evm.sendCoinFrom(key, randomAddress() as `0x${string}`, 60n * COMM);
		const again = await checkEligibilityAgain(t.db, chain(), result.value.application.id);
		if (!again.ok) throw new Error(again.message);
		expect(again.value.view.submitted?.results[0]?.held).toBe(String(100n * COMM));
		expect(again.value.now.results[0]).toEqual({ rule: 0, held: String(40n * COMM), ok: false });
		expect(again.value.now.ok).toBe(false);
		expect(again.value.now.block).toBeGreaterThan(again.value.view.submitted!.block);
		// Nothing written: the evidence at submission stays as it was.
		expect((await applicationById(t.db, result.value.application.id))!.eligibility).toEqual(
			result.value.application.eligibility
		);
	});

	it('/apply’s banner looks an address up at most once a minute', async () => {
		const rules = await requireCommOrNft();
		const holder = randomAddress();
		proxy.reset();
		const [a, b] = await Promise.all([
			previewEligibility(chain(), holder, 1, rules),
			previewEligibility(chain(), holder, 1, rules)
		]);
		await previewEligibility(chain(), holder, 1, rules);
		expect(a).toBe(b);
		expect(proxy.counts.get('eth_call')).toBe(1);
	});

	it('a resubmission is checked again, and a member with an application under review gets the 409 without a chain read', async () => {
		await requireCommOrNft();
		const member = await addMember(t.db);
		await evm.mintNft(member.address as `0x${string}`);
		const first = await submitApplication(t.db, OUTBOX_OFF, member, good, {}, { polygon: chain() });
		if (!first.ok) throw new Error(first.message);
		proxy.reset();
		const again = await submitApplication(t.db, OUTBOX_OFF, member, good, {}, { polygon: chain() });
		expect(again.ok ? 200 : again.status).toBe(409);
		expect(proxy.counts.size).toBe(0);
		await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: first.value.application.id,
			field: 'review',
			to: 'needs_info',
			reason: 'More please'
		});
		const resubmitted = await submitApplication(
			t.db,
			OUTBOX_OFF,
			member,
			{ ...good, motivation: 'More.' },
			{},
			{ polygon: chain() }
		);
		expect(resubmitted.ok && resubmitted.value.resubmitted).toBe(true);
		if (resubmitted.ok)
			expect(resubmitted.value.application.eligibility?.results[1]).toEqual({ rule: 1, held: '1', ok: true });
	});

	it('the review table filters by eligible at submission; applications without evidence match neither', async () => {
		const evidence = (ok: boolean) => ({ block: 1, checkedAt: new Date().toISOString(), ok, results: [] });
		const ids = { yes: '', no: '', none: '' };
		for (const [key, value] of [
			['yes', evidence(true)],
			['no', evidence(false)],
			['none', null]
		] as const) {
			const member = await addMember(t.db);
			const [row] = await t.db
				.insert(applications)
				.values({ applicantAddress: member.address, displayName: `Elig-${key}`, motivation: 'm', eligibility: value })
				.returning();
			ids[key] = row!.id;
		}
		const idsOf = async (eligible: string) =>
			(await reviewTable(t.db, parseTableQuery(new URLSearchParams({ eligible, q: 'Elig-' })))).rows.map((r) => r.id);
		expect(await idsOf('yes')).toEqual([ids.yes]);
		expect(await idsOf('no')).toEqual([ids.no]);
		expect((await idsOf('maybe')).sort()).toEqual([ids.yes, ids.no, ids.none].sort());
	});
});
