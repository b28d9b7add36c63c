import { describe, expect, it } from 'vitest';
import type { Me } from './session.svelte';
import { failed, type SignInOutcome, type SigningWallet } from './sign-in';
import { SignInFlow, type SignInFlowParts, type WalletChoice } from './sign-in-flow.svelte';

const ME: Me = { address: '0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B', isAdmin: false };
const SIGNER = { address: ME.address } as SigningWallet;

/** A flow over fake parts; `outcome` is what the server's side of the sign-in answers. */
function flowWith(parts: Partial<SignInFlowParts> & { outcome?: () => Promise<SignInOutcome> } = {}) {
	const signedIn: Me[] = [];
	const flow = new SignInFlow({
		signer: () => SIGNER,
		inSafe: () => false,
		signIn: parts.outcome ?? (() => Promise.resolve({ ok: true, value: ME })),
		signedIn: (me) => signedIn.push(me),
		...parts
	});
	return { flow, signedIn };
}

/** A wallet choice whose connection settles when the test says so. */
function pendingChoice(name = 'Test Wallet') {
	let settle!: (error?: Error) => void;
	const connected = new Promise<void>((resolve, reject) => (settle = (e) => (e ? reject(e) : resolve())));
	const choice: WalletChoice = { name, connect: () => connected };
	return { choice, settle };
}

describe('SignInFlow: the steps of a sign-in', () => {
	it('connect, sign, signed in: each step says what the member waits for', async () => {
		const { choice, settle } = pendingChoice();
		const { flow, signedIn } = flowWith();
		expect(flow.step).toEqual({ name: 'idle' });
		const done = flow.start(choice);
		expect(flow.busy).toBe('Connect your wallet in the Test Wallet window…');
		settle();
		await done;
		expect(flow.step).toEqual({ name: 'signed_in', me: ME });
		expect(flow.busy).toBeNull();
		expect(signedIn).toEqual([ME]);
	});

	it('while a step is under way a second start is ignored (a double click signs once)', async () => {
		const { choice, settle } = pendingChoice();
		let signIns = 0;
		const { flow } = flowWith({ outcome: () => (signIns++, Promise.resolve({ ok: true, value: ME })) });
		const first = flow.start(choice);
		await flow.start(null);
		settle();
		await first;
		expect(signIns).toBe(1);
	});

	it('a declined connection fails with a retry, and signs nothing', async () => {
		const { choice, settle } = pendingChoice();
		let signIns = 0;
		const { flow } = flowWith({ outcome: () => (signIns++, Promise.resolve({ ok: true, value: ME })) });
		const done = flow.start(choice);
		settle(Object.assign(new Error('User rejected the request.'), { code: 4001 }));
		await done;
		expect(flow.failure).toEqual({
			ok: false,
			code: 'connection_declined',
			action: 'retry',
			message: 'You declined the connection request in your wallet.'
		});
		expect(flow.retryLabel).toBe('Try again');
		expect(signIns).toBe(0);
	});

	it('a wallet that shares no account fails with a retry', async () => {
		const { flow } = flowWith({ signer: () => null });
		await flow.start(null);
		expect(flow.failure).toEqual({
			ok: false,
			code: 'no_account',
			action: 'retry',
			message: expect.stringMatching(/no account/) as string
		});
	});

	it("the server's refusal keeps its code, and the button offers a new signature", async () => {
		const failure = { ok: false, action: 'sign_again', message: 'words', code: 'signature_invalid' } as const;
		const { flow, signedIn } = flowWith({ outcome: () => Promise.resolve(failure) });
		await flow.start(null);
		expect(flow.failure).toEqual(failure);
		expect(flow.retryLabel).toBe('Sign again');
		expect(signedIn).toEqual([]);
	});

	it('inside a Safe the signing step says Safe{Wallet} signs', async () => {
		let finish!: (o: SignInOutcome) => void;
		const { flow } = flowWith({ inSafe: () => true, outcome: () => new Promise((r) => (finish = r)) });
		const done = flow.start(null);
		expect(flow.busy).toBe('Sign the message in Safe{Wallet}…');
		finish({ ok: false, code: 'rate_limited', action: null, message: 'wait' });
		await done;
		expect(flow.step).toEqual({
			name: 'failed',
			failure: { ok: false, code: 'rate_limited', action: null, message: 'wait' }
		});
	});

	it('an unexpected error in the sign-in ends in a failure, never a stuck step', async () => {
		const { flow } = flowWith({ outcome: () => Promise.reject(new Error('boom')) });
		await flow.start(null);
		expect(flow.failure).toMatchObject({ code: 'interrupted', action: 'sign_again' });
		expect(flow.busy).toBeNull();
	});
});

describe('SignInFlow: One-Click Auth (a choice that signs in on connecting)', () => {
	const oneClick = (signInOnConnect: WalletChoice['signInOnConnect']): WalletChoice => ({
		name: 'WalletConnect',
		connect: () => Promise.reject(new Error('connect is not used when the choice signs in on connecting')),
		signInOnConnect
	});

	it('one approval signs in: the flow asks for no second signature', async () => {
		let signIns = 0;
		const { flow, signedIn } = flowWith({
			outcome: () => (signIns++, Promise.resolve({ ok: true, value: ME } as const))
		});
		await flow.start(oneClick(() => Promise.resolve({ ok: true, value: ME } as const)));
		expect(flow.step).toEqual({ name: 'signed_in', me: ME });
		expect(signedIn).toEqual([ME]);
		expect(signIns).toBe(0);
	});

	it('a wallet without One-Click Auth only connects: the flow then signs as with any wallet (connect-then-sign)', async () => {
		let signIns = 0;
		const { flow, signedIn } = flowWith({
			outcome: () => (signIns++, Promise.resolve({ ok: true, value: ME } as const))
		});
		await flow.start(oneClick(() => Promise.resolve(null)));
		expect(signIns).toBe(1);
		expect(flow.step).toEqual({ name: 'signed_in', me: ME });
		expect(signedIn).toEqual([ME]);
	});

	it("the server's refusal of the signed message is shown with its code, and nothing is signed again", async () => {
		let signIns = 0;
		const { flow } = flowWith({ outcome: () => (signIns++, Promise.resolve({ ok: true, value: ME } as const)) });
		const failure = failed('expired', 'The sign-in request expired.', 'sign_again');
		await flow.start(oneClick(() => Promise.resolve(failure)));
		expect(flow.failure).toEqual(failure);
		expect(flow.retryLabel).toBe('Sign again');
		expect(signIns).toBe(0);
	});

	it('declined in the wallet app: the connection failure, with a retry', async () => {
		const { flow } = flowWith();
		await flow.start(oneClick(() => Promise.reject(Object.assign(new Error('User rejected.'), { code: 4001 }))));
		expect(flow.failure).toEqual(
			failed('connection_declined', 'You declined the connection request in your wallet.', 'retry')
		);
	});
});
