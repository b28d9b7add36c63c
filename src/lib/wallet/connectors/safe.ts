/**
 * The portal as a Safe App inside Safe{Wallet} (docs/sign-in.md "Inside Safe{Wallet}"): wagmi's Safe
 * connector over the Safe Apps SDK. wallet.svelte.ts imports this module dynamically and only when the
 * page runs in a frame, so a normal visit never loads it.
 */
import SafeAppsSDK from '@safe-global/safe-apps-sdk';
import { safe } from '@wagmi/connectors/safe';
import type { CreateConnectorFn } from '@wagmi/core';

/** What the sign-in page needs to know about the Safe before it asks for a signature. */
export interface SafeDetails {
	address: `0x${string}`;
	chainId: number;
	/** Owners whose signatures the Safe needs. */
	threshold: number;
	owners: number;
}

/** How long the parent frame has to answer getSafeInfo before the page is taken as framed by something else. */
const SAFE_INFO_TIMEOUT_MS = 3000;

/**
 * The Safe that frames this page, and a connector for it; null when the parent frame does not answer
 * as Safe{Wallet} does.
 */
export async function findSafe(): Promise<{ details: SafeDetails; connector: CreateConnectorFn } | null> {
	const sdk = new SafeAppsSDK();
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SAFE_INFO_TIMEOUT_MS)));
	const info = await Promise.race([sdk.safe.getInfo().catch(() => null), timeout]);
	clearTimeout(timer);
	if (!info) return null;
	return {
		details: {
			address: info.safeAddress as `0x${string}`,
			chainId: info.chainId,
			threshold: info.threshold,
			owners: info.owners.length
		},
		// The parent has just answered: give the connector's own getSafeInfo the same time (its default is 10 ms).
		connector: safe({ unstable_getInfoTimeout: SAFE_INFO_TIMEOUT_MS })
	};
}
