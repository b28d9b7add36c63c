/**
 * WalletConnect (docs/sign-in.md "WalletConnect"): wagmi's connector over WalletConnect's relay, with its
 * QR code modal on a desktop and its wallet-app links on a phone. Loaded with import() only when the member
 * picks WalletConnect, so this code and @walletconnect/* stay out of every other chunk.
 */
import { walletConnect } from '@wagmi/connectors/walletConnect';
import { logoHref } from '$lib/branding/branding';
import { community } from '$lib/branding/community';
import { signInWithOneClickAuth, type OneClickAuth } from '../one-click-auth';
import type { SignInEnvironment, SignInOutcome } from '../sign-in';
import type { Connector, Wallet } from '../wallet.svelte';
import { signin_relay_unreachable } from '$lib/paraglide/messages/signin_relay_unreachable.js';

/**
 * How long the relay may take to hand out a pairing link (the QR code). WalletConnect's client keeps
 * retrying an unreachable relay without ever failing, so without this bound the choice would hang.
 */
export const RELAY_TIMEOUT_MS = 8_000;

/** What the member reads (bench/scenarios/js-size.js finds WalletConnect's chunk by its English words). */
export const relayUnreachable = (): string => signin_relay_unreachable();

/** The relay gave no pairing link within RELAY_TIMEOUT_MS. */
export class WalletConnectUnreachableError extends Error {
	constructor() {
		super(relayUnreachable());
		this.name = 'WalletConnectUnreachableError';
	}
}

/** One connector per page: a second pick reuses its provider rather than starting another relay client. */
let connector: Connector | null = null;

/** The page's WalletConnect connector, set up on first use (a pick, or the restore of a session after a reload). */
export function walletConnectConnector(wallet: Wallet, projectId: string, origin: string): Connector {
	connector ??= wallet.addConnector(
		walletConnect({
			projectId,
			// The modal shows a QR code on a desktop and wallet-app links on a phone.
			showQrModal: true,
			// Polygon is the only chain, ever: a session on it is never stale. So wagmi takes over the session
			// One-Click Auth opens instead of pairing again (it otherwise trusts a list kept in localStorage).
			isNewChainsStale: false,
			metadata: {
				name: community.name,
				description: community.description,
				// The wallet shows this origin and WalletConnect's verify service checks it.
				url: origin,
				icons: [new URL(logoHref(community), origin).href]
			}
		})
	);
	return connector;
}

/**
 * Restores the WalletConnect session of an earlier page (wagmi's last connector was WalletConnect,
 * Wallet.reconnect()): connects without a new pairing when WalletConnect's provider finds the session
 * in its storage, and forgets WalletConnect as the last connector when it finds none, so that later
 * pages load nothing of it. A relay that does not answer within RELAY_TIMEOUT_MS is left alone (the
 * session may still be good on the next page).
 */
export async function restoreWalletConnect(wallet: Wallet, projectId: string, origin: string): Promise<void> {
	const chosen = walletConnectConnector(wallet, projectId, origin);
	let timer: ReturnType<typeof setTimeout> | undefined;
	const unanswered = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), RELAY_TIMEOUT_MS)));
	const authorized = await Promise.race([chosen.isAuthorized(), unanswered]).finally(() => clearTimeout(timer));
	if (authorized === null) return;
	if (!authorized) return void (await wallet.config.storage?.removeItem('recentConnectorId'));
	await wallet.connect(chosen);
}

/** Closes WalletConnect's modal, if its provider has started; closing it also ends the pending connection request. */
async function closeModal(chosen: Connector): Promise<void> {
	const started = await Promise.race([
		chosen.getProvider().catch(() => null),
		new Promise<null>((resolve) => setTimeout(() => resolve(null), 250))
	]);
	const modal = (started as { modal?: { close?: () => unknown } } | null)?.modal;
	try {
		await modal?.close?.();
	} catch {
		// Nothing more to undo: the member sees the message either way.
	}
}

/**
 * Connects the member's wallet over WalletConnect (Polygon is the config's only chain). Rejects with
 * WalletConnectUnreachableError when the relay hands out no pairing link within `timeoutMs`; once the
 * QR code or the app links are shown, the member has as long as the modal stays open.
 */
export async function connectWalletConnect(
	wallet: Wallet,
	projectId: string,
	options: { origin: string; timeoutMs?: number }
): Promise<void> {
	const chosen = walletConnectConnector(wallet, projectId, options.origin);
	let timer: ReturnType<typeof setTimeout> | undefined;
	const onMessage = ({ type }: { type: string }) => {
		if (type === 'display_uri') clearTimeout(timer);
	};
	const unreachable = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new WalletConnectUnreachableError()), options.timeoutMs ?? RELAY_TIMEOUT_MS);
	});
	chosen.emitter.on('message', onMessage);
	try {
		await Promise.race([wallet.connect(chosen), unreachable]);
	} catch (error) {
		// The modal opens before the relay answers: close it so the page (and a second choice) is usable again.
		if (error instanceof WalletConnectUnreachableError) await closeModal(chosen);
		throw error;
	} finally {
		clearTimeout(timer);
		chosen.emitter.off('message', onMessage);
	}
}

/** What of WalletConnect's EthereumProvider One-Click Auth uses. */
interface AuthenticatingProvider {
	session?: object;
	on(event: 'display_uri', listener: (uri: string) => void): unknown;
	removeListener(event: 'display_uri', listener: (uri: string) => void): unknown;
	authenticate(params: {
		chains: number[];
		domain: string;
		uri: string;
		nonce: string;
		statement: string;
		iat: string;
		exp: string;
		methods: string[];
	}): Promise<{ auths?: Cacao[] } | undefined>;
	signer: { client: { formatAuthMessage(params: { request: Cacao['p']; iss: string }): string } };
}

/** A CAIP-74 object capability: what the wallet signed (`p`) and its signature (`s`). */
interface Cacao {
	p: { iss: string; domain: string; nonce: string } & Record<string, unknown>;
	s: { t: string; s: string };
}

/** What the portal asks the wallet to allow in the session One-Click Auth opens (its ReCap). */
const SESSION_METHODS = ['personal_sign', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'wallet_watchAsset'];

/**
 * One-Click Auth over WalletConnect (docs/sign-in.md "One-Click Auth"): the phone wallet connects and
 * signs the sign-in message in one approval (`authenticate`, EIP-4361 with ReCaps). The message comes
 * back as WalletConnect's signed object; it is rebuilt with WalletConnect's own formatter, which is the
 * text the wallet signed. A wallet without One-Click Auth answers WalletConnect's fallback, an ordinary
 * session: then the result is null and the member signs as with any connected wallet. A member already
 * connected over WalletConnect signs over that session (null as well).
 */
export function walletConnectOneClickAuth(
	wallet: Wallet,
	projectId: string,
	options: { origin: string; timeoutMs?: number }
): OneClickAuth {
	return async (request) => {
		const chosen = walletConnectConnector(wallet, projectId, options.origin);
		const provider = (await chosen.getProvider()) as AuthenticatingProvider;
		if (provider.session) {
			await wallet.connect(chosen);
			return null;
		}
		let timer: ReturnType<typeof setTimeout> | undefined;
		const onUri = () => clearTimeout(timer);
		const unreachable = new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(new WalletConnectUnreachableError()), options.timeoutMs ?? RELAY_TIMEOUT_MS);
		});
		provider.on('display_uri', onUri);
		let result: Awaited<ReturnType<AuthenticatingProvider['authenticate']>>;
		try {
			result = await Promise.race([
				provider.authenticate({
					chains: [request.chainId],
					domain: request.domain,
					uri: request.uri,
					nonce: request.nonce,
					statement: request.statement,
					iat: request.issuedAt.toISOString(),
					exp: request.expirationTime.toISOString(),
					methods: SESSION_METHODS
				}),
				unreachable
			]);
		} catch (error) {
			if (error instanceof WalletConnectUnreachableError) await closeModal(chosen);
			throw error;
		} finally {
			clearTimeout(timer);
			provider.removeListener('display_uri', onUri);
		}
		// wagmi takes over the session authenticate opened (no second pairing: isNewChainsStale above).
		await wallet.connect(chosen);
		const cacao = result?.auths?.find((auth) => auth.p.iss.startsWith(`did:pkh:eip155:${request.chainId}:`));
		if (!cacao) return null;
		const message = provider.signer.client.formatAuthMessage({ request: cacao.p, iss: cacao.p.iss });
		return { message, signature: cacao.s.s as `0x${string}` };
	};
}

/** Sign-in with WalletConnect: One-Click Auth, or connect-then-sign for a wallet without it (null). */
export function signInWithWalletConnect(
	wallet: Wallet,
	projectId: string,
	env: SignInEnvironment & { timeoutMs?: number }
): Promise<SignInOutcome | null> {
	return signInWithOneClickAuth(
		walletConnectOneClickAuth(wallet, projectId, { origin: env.origin, timeoutMs: env.timeoutMs }),
		env
	);
}
