import { encodeFunctionData, erc1155Abi, erc20Abi } from 'viem';
import { LRUCache } from 'lru-cache';
import {
	qualifies,
	ruleContract,
	ruleMin,
	type EligibilityEvidence,
	type EligibilityRule,
	type EligibilityRules,
	type TokenDetails
} from '$lib/eligibility/rules';
import { polygonRpc } from '../chain/polygon';
import type { RpcEndpoint } from '../platform/endpoints';
import {
	ChainUnavailableError,
	decodeDetails,
	forgetMulticallAbsence,
	detailCalls,
	readAtOneBlock,
	uint256Of,
	type ChainCall
} from './read-chain';

// Every check asks `polygon`, POLYGON_RPC_URL as startRuntime built it (runtime().chain.polygon), passed down
// by the caller; its `timeoutMs` is a whole check's budget (5 s; tests may shorten it). null: rules cannot be checked.

/** Why a check has no answer: no POLYGON_RPC_URL, no answer in time, another chain, or a rule's contract that did not answer. */
export type Unchecked = 'not_configured' | 'no_answer' | 'wrong_chain' | 'contract_failed';

export type CheckAnswer =
	| { ok: true; evidence: EligibilityEvidence; details: Record<string, TokenDetails> }
	| { ok: false; why: Unchecked; rule?: number };

// ERC-20 symbol and decimals hardly ever change: read once per token per process, in the same round trip as a check.
const detailsCache = new LRUCache<string, TokenDetails>({ max: 1_000 });

/** The balance call of one rule for `holder`. */
function balanceCall(rule: EligibilityRule, holder: `0x${string}`): ChainCall {
	if (rule.kind === 'erc1155')
		return {
			target: rule.contract,
			data: encodeFunctionData({ abi: erc1155Abi, functionName: 'balanceOf', args: [holder, BigInt(rule.id)] })
		};
	return {
		target: ruleContract(rule),
		data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] })
	};
}

const erc20Tokens = (rules: readonly EligibilityRule[]) => [
	...new Set(rules.filter((r) => r.kind === 'erc20').map((r) => ruleContract(r).toLowerCase() as `0x${string}`))
];

/**
 * What `holder` holds for every rule, at one block (one round trip where Multicall3 is deployed),
 * with the ERC-20 details not yet known read in the same round trip. Within the endpoint's budget
 * (5 s) or not at all; never throws.
 */
export async function checkEligibility(
	polygon: RpcEndpoint | null,
	holder: string,
	rules: EligibilityRules,
	now: () => Date = () => new Date()
): Promise<CheckAnswer> {
	if (!polygon) return { ok: false, why: 'not_configured' };
	const { url, timeoutMs } = polygon;
	const address = holder.toLowerCase() as `0x${string}`;
	const missing = erc20Tokens(rules.rules).filter((t) => !detailsCache.has(`${url} ${t}`));
	const calls = [...rules.rules.map((r) => balanceCall(r, address)), ...missing.flatMap(detailCalls)];
	const reading = await withinBudget(readAtOneBlock(polygonRpc(url, timeoutMs), calls), timeoutMs);
	if (!reading.ok) return reading;
	const { block, returns } = reading.value;
	missing.forEach((token, i) => {
		const at = rules.rules.length + 2 * i;
		detailsCache.set(`${url} ${token}`, decodeDetails(returns[at] ?? null, returns[at + 1] ?? null));
	});
	const results = [];
	for (const [i, rule] of rules.rules.entries()) {
		const held = uint256Of(returns[i] ?? null);
		if (held === null) return { ok: false, why: 'contract_failed', rule: i };
		results.push({ rule: i, held: held.toString(), ok: held >= ruleMin(rule) });
	}
	const evidence: EligibilityEvidence = {
		block: Number(block),
		checkedAt: now().toISOString(),
		ok: qualifies(
			rules.mode,
			results.map((r) => r.ok)
		),
		results
	};
	return { ok: true, evidence, details: knownDetails(url, rules.rules) };
}

/** The ERC-20 details this process knows for these rules, by lowercase token address. */
function knownDetails(url: string, rules: readonly EligibilityRule[]): Record<string, TokenDetails> {
	const out: Record<string, TokenDetails> = {};
	for (const token of erc20Tokens(rules)) {
		const d = detailsCache.get(`${url} ${token}`);
		if (d) out[token] = d;
	}
	return out;
}

/**
 * The ERC-20 details of these rules for display: from this process's memory, the rest read in one
 * round trip; what cannot be read now is left out (amounts then show in base units).
 */
export async function tokenDetails(
	polygon: RpcEndpoint | null,
	rules: EligibilityRules | null
): Promise<Record<string, TokenDetails>> {
	if (!polygon || !rules) return {};
	const { url, timeoutMs } = polygon;
	const missing = erc20Tokens(rules.rules).filter((t) => !detailsCache.has(`${url} ${t}`));
	if (missing.length) {
		const reading = await withinBudget(
			readAtOneBlock(polygonRpc(url, timeoutMs), missing.flatMap(detailCalls)),
			timeoutMs
		);
		if (reading.ok)
			missing.forEach((token, i) =>
				detailsCache.set(
					`${url} ${token}`,
					decodeDetails(reading.value.returns[2 * i] ?? null, reading.value.returns[2 * i + 1] ?? null)
				)
			);
	}
	return knownDetails(url, rules.rules);
}

// An address that holds nothing in particular: the editor's trial read (ERC-721 refuses balanceOf(0)).
const PROBE = '0x000000000000000000000000000000000000dEaD';

/**
 * The editor's check before saving: every rule's balance call answers on chain 137 (so the address is
 * a contract of that kind there), and the ERC-20 details, read in the same round trip.
 */
export async function trialCheck(polygon: RpcEndpoint | null, rules: EligibilityRules): Promise<CheckAnswer> {
	return checkEligibility(polygon, PROBE, rules);
}

async function withinBudget<T>(
	work: Promise<T>,
	timeoutMs: number
): Promise<{ ok: true; value: T } | { ok: false; why: 'no_answer' | 'wrong_chain' }> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const deadline = new Promise<{ ok: false; why: 'no_answer' }>((resolve) => {
		timer = setTimeout(() => resolve({ ok: false, why: 'no_answer' }), timeoutMs);
	});
	try {
		return await Promise.race([work.then((value) => ({ ok: true as const, value })), deadline]);
	} catch (err) {
		return { ok: false, why: err instanceof ChainUnavailableError ? err.why : 'no_answer' };
	} finally {
		clearTimeout(timer);
	}
}

// /apply's banner: at most one look-up a minute per address (and form version), shared by concurrent loads.
const previews = new LRUCache<string, Promise<CheckAnswer>>({ max: 10_000, ttl: 60_000 });

/** The check /apply shows before the form, cached a minute per address and form version. */
export function previewEligibility(
	polygon: RpcEndpoint | null,
	holder: string,
	formId: number | null,
	rules: EligibilityRules
): Promise<CheckAnswer> {
	const key = `${polygon?.url ?? ''} ${formId ?? 0} ${holder.toLowerCase()}`;
	let answer = previews.get(key);
	if (!answer) {
		answer = checkEligibility(polygon, holder, rules);
		previews.set(key, answer);
	}
	return answer;
}

/** Tests start each case with an empty cache. */
export function forgetEligibilityCaches(): void {
	previews.clear();
	detailsCache.clear();
	forgetMulticallAbsence();
}
