// Eligibility on chain: what a check and a submission ask of the chain. JSON-RPC requests are counted by a
// proxy in front of ganache (chain 137, in-process; tests/helpers/eligibility-chain.ts), for a five-rule
// check with Multicall3 deployed and without it, and for a submission with the issue's two rules against
// one without rules (the baseline) in the same run. The database is PGlite in memory.
// Usage: npx vitest bench --run --project unit bench/eligibility.bench.ts (about a minute).
import { bench, describe } from 'vitest';
import { submitApplication } from '../src/lib/server/applications/submit';
import { createDb } from '../src/lib/server/db/client';
import { members } from '../src/lib/server/db/schema';
import { writeFormVersion } from '../src/lib/server/forms/save-version';
import { checkEligibility, forgetEligibilityCaches } from '../src/lib/server/eligibility/check';
import { rpcEndpoint } from '../src/lib/server/platform/endpoints';
import type { EligibilityRules } from '../src/lib/eligibility/rules';
import { startEligibilityChain } from '../tests/helpers/eligibility-chain';
import { OUTBOX_OFF } from '../tests/helpers/outbox';
import { startRpcProxy } from '../tests/helpers/rpc-proxy';

const ROUNDS = 20;
const handle = createDb({ databaseUrl: null, pgliteDataDir: 'memory://' });
await handle.ready();
const evm = await startEligibilityChain();
const rpc = await startRpcProxy(evm.chain.url);
const polygon = rpcEndpoint(rpc.url);
const admin = { address: '0x' + 'ad'.repeat(20), isAdmin: true };
const lower = (a: string) => a.toLowerCase() as `0x${string}`;

const five: EligibilityRules = {
	mode: 'all',
	rules: [
		{ kind: 'erc20', token: lower(evm.coin), min: '1' },
		{ kind: 'erc721', contract: lower(evm.nft), min: 1 },
		{ kind: 'erc1155', contract: lower(evm.badges), id: '1', min: 1 },
		{ kind: 'erc1155', contract: lower(evm.badges), id: '2', min: 1 },
		{ kind: 'erc20', token: lower(evm.coin), min: '1000' }
	]
};
const issueRules: EligibilityRules = {
	mode: 'any',
	rules: [
		{ kind: 'erc20', token: lower(evm.coin), min: String(100n * 10n ** 18n), label: 'Hold 100 COMM' },
		{ kind: 'erc721', contract: lower(evm.nft), min: 1 }
	]
};

let n = 0;
/** A fresh member holding one Membership NFT (so that the issue's rules let them in). */
async function holder(): Promise<{ address: string; isAdmin: boolean }> {
	const address = `0x${(++n).toString(16).padStart(40, '0')}`;
	await handle.db.insert(members).values({ address });
	await evm.mintNft(address as `0x${string}`);
	return { address, isAdmin: false };
}

const total = () => [...rpc.counts.values()].reduce((a, b) => a + b, 0);

/** Requests and milliseconds of `work`, `rounds` times: the mean of each, and the requests by method. */
async function measure(label: string, rounds: number, work: () => Promise<unknown>, before?: () => Promise<void>) {
	let requests = 0;
	let ms = 0;
	const methods = new Map<string, number>();
	for (let i = 0; i < rounds; i++) {
		await before?.();
		rpc.reset();
		const started = performance.now();
		await work();
		ms += performance.now() - started;
		requests += total();
		for (const [m, c] of rpc.counts) methods.set(m, (methods.get(m) ?? 0) + c);
	}
	const row = {
		label,
		rounds,
		rpcPerCall: requests / rounds,
		rpc: Object.fromEntries(methods),
		msPerCall: +(ms / rounds).toFixed(1)
	};
	console.log(JSON.stringify(row));
	return row;
}

const once = { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 };

describe('eligibility on chain: JSON-RPC requests', () => {
	bench(
		'a five-rule check, Multicall3 deployed: cold (chain id, block and token details in the same call), then warm',
		async () => {
			await evm.setMulticall3(true);
			forgetEligibilityCaches();
			await measure('five rules, Multicall3, cold', 1, () => checkEligibility(polygon, evm.safe, five));
			await measure('five rules, Multicall3, warm', ROUNDS, () => checkEligibility(polygon, evm.safe, five));
		},
		once
	);
	bench(
		'a five-rule check without Multicall3: eth_blockNumber, then parallel calls pinned to that block',
		async () => {
			await evm.setMulticall3(false);
			forgetEligibilityCaches();
			await checkEligibility(polygon, evm.safe, five); // learns there is no Multicall3 and the token's details
			await measure('five rules, parallel at one block, warm', ROUNDS, () => checkEligibility(polygon, evm.safe, five));
			await evm.setMulticall3(true);
			forgetEligibilityCaches();
		},
		once
	);
	bench(
		'a submission with the issue’s two rules against one without rules (baseline), alternating',
		async () => {
			const good = { displayName: 'Ada', motivation: 'I build things.', contact: '' };
			let member = await holder();
			const next = async () => {
				member = await holder();
			};
			const rows = { without: [] as number[], with: [] as number[], rpcWithout: 0, rpcWith: 0 };
			for (let round = 0; round < 5; round++) {
				await writeFormVersion(handle.db, admin, { eligibility: null });
				const a = await measure(
					'submit without rules',
					4,
					() => submitApplication(handle.db, OUTBOX_OFF, member, good, {}, { polygon }),
					next
				);
				await writeFormVersion(handle.db, admin, { eligibility: issueRules });
				const b = await measure(
					'submit with two rules',
					4,
					() => submitApplication(handle.db, OUTBOX_OFF, member, good, {}, { polygon }),
					next
				);
				rows.without.push(a.msPerCall);
				rows.with.push(b.msPerCall);
				rows.rpcWithout = a.rpcPerCall;
				rows.rpcWith = b.rpcPerCall;
			}
			const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
			console.log(
				JSON.stringify({
					label: 'submit: with rules vs without',
					rpcPerSubmitWithout: rows.rpcWithout,
					rpcPerSubmitWith: rows.rpcWith,
					medianMsWithout: median(rows.without),
					medianMsWith: median(rows.with),
					ratio: +(median(rows.with) / median(rows.without)).toFixed(2)
				})
			);
		},
		once
	);
});
