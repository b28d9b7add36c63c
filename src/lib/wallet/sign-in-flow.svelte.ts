import { signin_busy_connecting } from '$lib/paraglide/messages/signin_busy_connecting.js';
import { signin_busy_safe } from '$lib/paraglide/messages/signin_busy_safe.js';
import { signin_busy_signing } from '$lib/paraglide/messages/signin_busy_signing.js';
import { signin_connection_declined } from '$lib/paraglide/messages/signin_connection_declined.js';
import { signin_connection_failed } from '$lib/paraglide/messages/signin_connection_failed.js';
import { signin_interrupted } from '$lib/paraglide/messages/signin_interrupted.js';
import { signin_no_account } from '$lib/paraglide/messages/signin_no_account.js';
import { signin_sign_again } from '$lib/paraglide/messages/signin_sign_again.js';
import { signin_try_again } from '$lib/paraglide/messages/signin_try_again.js';
import type { Me } from './session.svelte';
import { failed, isUserRejection, type SignInFailure, type SignInOutcome, type SigningWallet } from './sign-in';

/** A wallet to connect before signing: one found in the browser, or WalletConnect. */
export interface WalletChoice {
	name: string;
	connect: () => Promise<void>;
	/**
	 * Connects and signs in one approval (WalletConnect's One-Click Auth), in place of `connect`: the
	 * outcome, or null when the wallet only connected (then the flow signs as with any connected wallet).
	 */
	signInOnConnect?: () => Promise<SignInOutcome | null>;
}

/**
 * The sign-in screen's steps (docs/sign-in.md "Browser"): SignIn.svelte draws the step and calls
 * `start`; nothing else changes it.
 */
export type SignInStep =
	| { name: 'idle' }
	| { name: 'connecting'; wallet: string }
	| { name: 'signing'; inSafe: boolean }
	| { name: 'failed'; failure: SignInFailure }
	| { name: 'signed_in'; me: Me };

/** What the flow needs from the page: the browser passes the wagmi wallet and the real endpoints, tests fakes. */
export interface SignInFlowParts {
	/** The connected account, or null when the wallet shared none. */
	signer(): SigningWallet | null;
	/** True inside Safe{Wallet} (the Safe signs there, and says so). */
	inSafe(): boolean;
	/** Steps 2-6 for a connected wallet: signInWithEthereum with the page's fetch and location. */
	signIn(signer: SigningWallet): Promise<SignInOutcome>;
	signedIn(me: Me): void;
}

/** What went wrong while connecting, in the member's words. */
export function connectFailure(error: unknown): SignInFailure {
	if (isUserRejection(error)) return failed('connection_declined', signin_connection_declined());
	// connectors/walletconnect.ts: the relay handed out no pairing link in time.
	if (error instanceof Error && error.name === 'WalletConnectUnreachableError')
		return failed('relay_unreachable', error.message);
	return failed('connection_failed', signin_connection_failed());
}

export class SignInFlow {
	step = $state.raw<SignInStep>({ name: 'idle' });
	readonly #parts: SignInFlowParts;

	constructor(parts: SignInFlowParts) {
		this.#parts = parts;
	}

	/** What the member is waiting for, in their words; null when nothing is under way. */
	get busy(): string | null {
		if (this.step.name === 'connecting') return signin_busy_connecting({ wallet: this.step.wallet });
		if (this.step.name === 'signing')
			return this.step.inSafe ? signin_busy_safe({ app: 'Safe{Wallet}' }) : signin_busy_signing();
		return null;
	}

	get failure(): SignInFailure | null {
		return this.step.name === 'failed' ? this.step.failure : null;
	}

	/** The label of the button that tries again: a new signature, or the whole step again. */
	get retryLabel(): string {
		const failure = this.failure;
		return failure?.action === 'sign_again' ? signin_sign_again() : signin_try_again();
	}

	/** Connects `choice` (none: the wallet already connected), then signs in. Ignored while a step is under way. */
	async start(choice: WalletChoice | null): Promise<void> {
		if (this.busy) return;
		if (choice) {
			this.step = { name: 'connecting', wallet: choice.name };
			let outcome: SignInOutcome | null = null;
			try {
				if (choice.signInOnConnect) outcome = await choice.signInOnConnect();
				else await choice.connect();
			} catch (error) {
				this.step = { name: 'failed', failure: connectFailure(error) };
				return;
			}
			if (outcome) return this.#finish(outcome);
		}
		const signer = this.#parts.signer();
		if (!signer) {
			this.step = {
				name: 'failed',
				failure: failed('no_account', signin_no_account())
			};
			return;
		}
		this.step = { name: 'signing', inSafe: this.#parts.inSafe() };
		const outcome = await this.#parts
			.signIn(signer)
			.catch((): SignInOutcome => failed('interrupted', signin_interrupted(), 'sign_again'));
		this.#finish(outcome);
	}

	#finish(outcome: SignInOutcome): void {
		if (outcome.ok) {
			this.step = { name: 'signed_in', me: outcome.value };
			this.#parts.signedIn(outcome.value);
		} else this.step = { name: 'failed', failure: outcome };
	}
}
