import { getIronSession } from 'iron-session';
import { cookies } from 'next/headers';
import { sessionOptions, type SessionData } from '@/lib/session';

/** The signed-in address from the session cookie; 401 without one. */
export async function GET() {
	const session = await getIronSession<SessionData>(await cookies(), sessionOptions);
	if (!session.address) return Response.json({ error: 'unauthorized' }, { status: 401 });
	return Response.json({ address: session.address, chainId: session.chainId });
}
