import { getIronSession } from 'iron-session';
import { cookies } from 'next/headers';
import { generateSiweNonce } from 'viem/siwe';
import { sessionOptions, type SessionData } from '@/lib/session';

/** A one-time nonce, kept in the session cookie until the next verify. */
export async function GET() {
	const session = await getIronSession<SessionData>(await cookies(), sessionOptions);
	session.nonce = generateSiweNonce();
	await session.save();
	return Response.json({ nonce: session.nonce });
}
