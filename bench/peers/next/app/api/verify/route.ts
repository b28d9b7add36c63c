import { getIronSession } from 'iron-session';
import { cookies } from 'next/headers';
import { verifyMessage } from 'viem';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { CHAIN_ID, siweDomain, sessionOptions, type SessionData } from '@/lib/session';

/**
 * Verifies a signed SIWE message against the nonce in the cookie, the domain and the chain; on success
 * the cookie holds { address, chainId }. Signatures of ordinary accounts (EOAs), recovered locally.
 */
export async function POST(request: Request) {
	const session = await getIronSession<SessionData>(await cookies(), sessionOptions);
	const nonce = session.nonce;
	session.nonce = undefined; // one use, whatever the outcome
	let body: { message?: unknown; signature?: unknown };
	try {
		body = (await request.json()) as typeof body;
	} catch {
		body = {};
	}
	const { message, signature } = body;
	if (typeof message !== 'string' || typeof signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(signature)) {
		await session.save();
		return Response.json({ error: 'invalid_request' }, { status: 400 });
	}
	const parsed = parseSiweMessage(message);
	const valid =
		nonce !== undefined &&
		parsed.address !== undefined &&
		parsed.chainId === CHAIN_ID &&
		validateSiweMessage({ message: parsed, domain: siweDomain(), nonce }) &&
		(await verifyMessage({ address: parsed.address, message, signature: signature as `0x${string}` }).catch(
			() => false
		));
	if (!valid || !parsed.address) {
		await session.save();
		return Response.json({ error: 'invalid_signature' }, { status: 401 });
	}
	session.address = parsed.address;
	session.chainId = parsed.chainId;
	await session.save();
	return Response.json({ address: parsed.address });
}
