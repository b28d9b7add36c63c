import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';

/** Fixed test keys (well-known development keys; they hold nothing). */
export const TEST_KEYS = {
	member: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
	admin: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
	other: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'
} as const;

export function testAccount(name: keyof typeof TEST_KEYS): PrivateKeyAccount {
	return privateKeyToAccount(TEST_KEYS[name]);
}

export interface MessageFields {
	domain: string;
	uri: string;
	nonce: string;
	address: `0x${string}`;
	chainId?: number;
	issuedAt?: Date;
	expirationTime?: Date | null;
	notBefore?: Date;
	statement?: string;
}

/** The message the browser builds (DECISIONS.md "Sign-in in the browser"), with overridable fields. */
export function buildMessage(fields: MessageFields): string {
	const now = new Date();
	return createSiweMessage({
		domain: fields.domain,
		uri: fields.uri,
		nonce: fields.nonce,
		address: fields.address,
		version: '1',
		chainId: fields.chainId ?? 137,
		issuedAt: fields.issuedAt ?? now,
		expirationTime: fields.expirationTime === null ? undefined : (fields.expirationTime ?? new Date(now.getTime() + 10 * 60_000)),
		notBefore: fields.notBefore,
		statement: fields.statement ?? 'Sign in to the member portal.'
	});
}

/** The value of the `session` cookie in a response's Set-Cookie headers ('' when cleared), or null. */
export function sessionCookieFrom(response: Response): string | null {
	for (const header of response.headers.getSetCookie()) {
		const match = /^session=([^;]*)/.exec(header);
		if (match) return match[1] ?? '';
	}
	return null;
}

/**
 * Signs in through real HTTP: GET /api/auth/nonce, sign the message, POST /api/auth/verify.
 * Returns the session cookie header value to send with later requests ("session=...").
 */
export async function signIn(baseUrl: string, account: PrivateKeyAccount): Promise<string> {
	const url = new URL(baseUrl);
	const nonceResponse = await fetch(`${baseUrl}/api/auth/nonce`);
	if (!nonceResponse.ok) throw new Error(`nonce: ${nonceResponse.status}`);
	const { nonce } = (await nonceResponse.json()) as { nonce: string };
	const nonceCookie = sessionCookieFrom(nonceResponse);
	const message = buildMessage({ domain: url.host, uri: url.origin, nonce, address: account.address });
	const signature = await account.signMessage({ message });
	const verify = await fetch(`${baseUrl}/api/auth/verify`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie: `session=${nonceCookie}` },
		body: JSON.stringify({ message, signature })
	});
	if (!verify.ok) throw new Error(`verify: ${verify.status} ${await verify.text()}`);
	return `session=${sessionCookieFrom(verify)}`;
}
