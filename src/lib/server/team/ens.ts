import { createPublicClient, http, type PublicClient } from 'viem';
import { mainnet } from 'viem/chains';
import { normalize } from 'viem/ens';
import { singleton } from '$lib/platform/singleton';
import type { RpcEndpoint } from '../platform/endpoints';

/** How long a name looked up (or its absence) is used before it is asked again. */
export const ENS_CACHE_MS = 24 * 60 * 60 * 1000;
/** How long a failed look-up (the endpoint down or slow) is remembered, so a page does not ask again at once. */
const FAILED_CACHE_MS = 5 * 60 * 1000;
/** The longest a page waits for names not yet known: the rest come on a later request. */
export const ENS_WAIT_MS = 1000;
const MAX_CACHED = 10_000;

/** One ENS endpoint's client, the names it gave (by lower-case address) and the look-ups under way. */
interface EnsLookups {
	client: PublicClient;
	names: Map<string, { name: string | null; until: number }>;
	pending: Map<string, Promise<void>>;
}

// Per endpoint, for the whole process (a restart forgets). The endpoint itself is ENS_RPC_URL as
// startRuntime built it (runtime().chain.ens: Ethereum mainnet, or null for no ENS names), passed in by
// the caller; nothing here holds it.
const lookups = singleton('ens lookups', () => new Map<string, EnsLookups>());

function lookupsAt({ url, timeoutMs }: RpcEndpoint): EnsLookups {
	const key = `${timeoutMs} ${url}`;
	let at = lookups.get().get(key);
	if (!at) {
		const transport = http(url, { timeout: timeoutMs, retryCount: 0 });
		at = { client: createPublicClient({ chain: mainnet, transport }), names: new Map(), pending: new Map() };
		lookups.get().set(key, at);
	}
	return at;
}

/**
 * The ENS name an address's reverse record gives, only when that name resolves forward to the same address
 * (anyone may point their reverse record at a name they do not hold); else null.
 */
async function verifiedName(client: PublicClient, address: `0x${string}`): Promise<string | null> {
	const name = await client.getEnsName({ address });
	if (!name) return null;
	let normalised: string;
	try {
		normalised = normalize(name);
	} catch {
		return null;
	}
	if (normalised !== name) return null;
	const forward = await client.getEnsAddress({ name: normalised });
	return forward && forward.toLowerCase() === address.toLowerCase() ? name : null;
}

function remember(names: EnsLookups['names'], address: string, name: string | null, forMs: number) {
	if (names.size >= MAX_CACHED) names.delete(names.keys().next().value!);
	names.set(address, { name, until: Date.now() + forMs });
}

/**
 * The verified ENS names of these lower-case addresses through `ens` (ENS_RPC_URL; none when null): each
 * cached 24 hours per process; those not yet known are looked up, waited for at most ENS_WAIT_MS, and
 * whatever is still out keeps going and shows on a later request. Never throws.
 */
export async function ensNames(
	ens: RpcEndpoint | null,
	addresses: readonly string[],
	waitMs = ENS_WAIT_MS
): Promise<Record<string, string>> {
	if (!ens || addresses.length === 0) return {};
	const { client, names, pending } = lookupsAt(ens);
	const now = Date.now();
	const waiting: Promise<void>[] = [];
	for (const address of addresses) {
		const hit = names.get(address);
		if (hit && hit.until > now) continue;
		let lookup = pending.get(address);
		if (!lookup) {
			lookup = verifiedName(client, address as `0x${string}`)
				.then(
					(name) => remember(names, address, name, ENS_CACHE_MS),
					() => remember(names, address, null, FAILED_CACHE_MS)
				)
				.finally(() => pending.delete(address));
			pending.set(address, lookup);
		}
		waiting.push(lookup);
	}
	if (waiting.length) {
		let timer: ReturnType<typeof setTimeout> | undefined;
		await Promise.race([Promise.all(waiting), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
		clearTimeout(timer);
	}
	const found: Record<string, string> = {};
	for (const address of addresses) {
		const name = names.get(address)?.name;
		if (name) found[address] = name;
	}
	return found;
}

/** The longest ENS name looked up, in characters (DNS's own bound on a name). */
export const ENS_NAME_MAX = 255;

export type EnsAddress =
	{ ok: true; address: string } | { ok: false; reason: 'off' | 'invalid' | 'unresolved' | 'unreachable' };

/**
 * The lower-case address an ENS name resolves to now through `ens` (ENS_RPC_URL; 'off' when null): for
 * adding someone to the team by name (issue 59). Never cached (an owner adds whom the name points at when
 * they add). Never throws.
 */
export async function addressOfEnsName(ens: RpcEndpoint | null, name: string): Promise<EnsAddress> {
	if (!ens) return { ok: false, reason: 'off' };
	let normalised: string;
	try {
		if (name.length > ENS_NAME_MAX) return { ok: false, reason: 'invalid' };
		normalised = normalize(name);
	} catch {
		return { ok: false, reason: 'invalid' };
	}
	try {
		const address = await lookupsAt(ens).client.getEnsAddress({ name: normalised });
		return address ? { ok: true, address: address.toLowerCase() } : { ok: false, reason: 'unresolved' };
	} catch {
		return { ok: false, reason: 'unreachable' };
	}
}
