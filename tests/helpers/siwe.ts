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

/** The message the browser builds (docs/sign-in.md "Browser"), with overridable fields. */
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
		expirationTime:
			fields.expirationTime === null ? undefined : (fields.expirationTime ?? new Date(now.getTime() + 10 * 60_000)),
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

/** Fields of an EIP-4361 message as the reference vectors give them (strings, as written). */
export interface RawMessageFields {
	scheme?: string | null;
	domain?: string;
	address?: string;
	statement?: string | null;
	uri?: string;
	version?: string;
	chainId?: number | string;
	nonce?: string;
	issuedAt?: string;
	expirationTime?: string | null;
	notBefore?: string | null;
	requestId?: string | null;
	resources?: string[] | null;
}

/**
 * Writes the fields verbatim in the EIP-4361 layout, with no defaults and no validation, so that a
 * missing or bad field reaches the parser as it is (a missing one as an empty value).
 */
export function formatMessage(f: RawMessageFields): string {
	const header = `${f.scheme ? `${f.scheme}://` : ''}${f.domain ?? ''} wants you to sign in with your Ethereum account:`;
	const lines = [header, f.address ?? '', ''];
	if (f.statement != null) lines.push(f.statement, '');
	else lines.push('');
	lines.push(
		`URI: ${f.uri ?? ''}`,
		`Version: ${f.version ?? ''}`,
		`Chain ID: ${f.chainId ?? ''}`,
		`Nonce: ${f.nonce ?? ''}`
	);
	lines.push(`Issued At: ${f.issuedAt ?? ''}`);
	if (f.expirationTime != null) lines.push(`Expiration Time: ${f.expirationTime}`);
	if (f.notBefore != null) lines.push(`Not Before: ${f.notBefore}`);
	if (f.requestId != null) lines.push(`Request ID: ${f.requestId}`);
	if (f.resources != null) lines.push('Resources:', ...f.resources.map((r) => `- ${r}`));
	return lines.join('\n');
}

/** GET /api/auth/nonce (with `cookie` when given): the nonce and the cookie value it set. */
export async function fetchNonce(
	baseUrl: string,
	cookie?: string
): Promise<{ nonce: string; cookie: string; response: Response }> {
	const response = await fetch(`${baseUrl}/api/auth/nonce`, { headers: cookie ? { cookie } : {} });
	if (!response.ok) throw new Error(`nonce: ${response.status}`);
	const { nonce } = (await response.json()) as { nonce: string };
	return { nonce, cookie: `session=${sessionCookieFrom(response) ?? ''}`, response };
}

/** POST /api/auth/verify with a JSON body (or a raw string body) and an optional cookie header. */
export async function postVerify(baseUrl: string, body: unknown, cookie?: string): Promise<Response> {
	return fetch(`${baseUrl}/api/auth/verify`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
		body: typeof body === 'string' ? body : JSON.stringify(body)
	});
}
