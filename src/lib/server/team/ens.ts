import { createPublicClient, http, type PublicClient } from 'viem';
import { mainnet } from 'viem/chains';
import { normalize } from 'viem/ens';
import { singleton } from '$lib/platform/singleton';

/** How long a name looked up (or its absence) is used before it is asked again. */
export const ENS_CACHE_MS = 24 * 60 * 60 * 1000;
/** How long a failed look-up (the endpoint down or slow) is remembered, so a page does not ask again at once. */
const FAILED_CACHE_MS = 5 * 60 * 1000;
/** The longest a page waits for names not yet known: the rest come on a later request. */
export const ENS_WAIT_MS = 1000;
const MAX_CACHED = 10_000;

const endpoint = singleton<{ client: PublicClient } | null>('ens endpoint', () => null);
const cache = singleton<Map<string, { name: string | null; until: number }>>('ens names', () => new Map());
const pending = singleton<Map<string, Promise<void>>>('ens pending', () => new Map());

/** ENS_RPC_URL, set once at start-up (startRuntime): an Ethereum mainnet endpoint, or null for no ENS names. */
export function setEnsEndpoint(url: string | null) {
	endpoint.set(
		url
			? { client: createPublicClient({ chain: mainnet, transport: http(url, { timeout: 5000, retryCount: 0 }) }) }
			: null
	);
	cache.get().clear();
	pending.get().clear();
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

function remember(address: string, name: string | null, forMs: number) {
	const names = cache.get();
	if (names.size >= MAX_CACHED) names.delete(names.keys().next().value!);
	names.set(address, { name, until: Date.now() + forMs });
}

/**
 * The verified ENS names of these lower-case addresses, where ENS_RPC_URL is set (none otherwise): each
 * cached 24 hours per process; those not yet known are looked up, waited for at most ENS_WAIT_MS, and
 * whatever is still out keeps going and shows on a later request. Never throws.
 */
export async function ensNames(addresses: readonly string[], waitMs = ENS_WAIT_MS): Promise<Record<string, string>> {
	const configured = endpoint.get();
	if (!configured || addresses.length === 0) return {};
	const names = cache.get();
	const now = Date.now();
	const lookups: Promise<void>[] = [];
	for (const address of addresses) {
		const hit = names.get(address);
		if (hit && hit.until > now) continue;
		let lookup = pending.get().get(address);
		if (!lookup) {
			lookup = verifiedName(configured.client, address as `0x${string}`)
				.then(
					(name) => remember(address, name, ENS_CACHE_MS),
					() => remember(address, null, FAILED_CACHE_MS)
				)
				.finally(() => pending.get().delete(address));
			pending.get().set(address, lookup);
		}
		lookups.push(lookup);
	}
	if (lookups.length) {
		let timer: ReturnType<typeof setTimeout> | undefined;
		await Promise.race([Promise.all(lookups), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
		clearTimeout(timer);
	}
	const found: Record<string, string> = {};
	for (const address of addresses) {
		const name = names.get(address)?.name;
		if (name) found[address] = name;
	}
	return found;
}

/** Whether ENS names are looked up here (ENS_RPC_URL set). */
export const ensEnabled = () => endpoint.get() !== null;

/** The longest ENS name looked up, in characters (DNS's own bound on a name). */
export const ENS_NAME_MAX = 255;

export type EnsAddress =
	{ ok: true; address: string } | { ok: false; reason: 'off' | 'invalid' | 'unresolved' | 'unreachable' };

/**
 * The lower-case address an ENS name resolves to now, where ENS_RPC_URL is set: for adding someone to the
 * team by name (issue 59). Never cached (an owner adds whom the name points at when they add). Never throws.
 */
export async function addressOfEnsName(name: string): Promise<EnsAddress> {
	const configured = endpoint.get();
	if (!configured) return { ok: false, reason: 'off' };
	let normalised: string;
	try {
		if (name.length > ENS_NAME_MAX) return { ok: false, reason: 'invalid' };
		normalised = normalize(name);
	} catch {
		return { ok: false, reason: 'invalid' };
	}
	try {
		const address = await configured.client.getEnsAddress({ name: normalised });
		return address ? { ok: true, address: address.toLowerCase() } : { ok: false, reason: 'unresolved' };
	} catch {
		return { ok: false, reason: 'unreachable' };
	}
}
