import { json } from '@sveltejs/kit';
import { jsonError, jsonErrorFrom } from '$lib/server/platform/http';
import { unreadCount } from '$lib/server/notifications/inbox';
import { withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

/** The signed-in member's unread notifications, for the header's count. */
export const GET: RequestHandler = async ({ locals, setHeaders }) => {
	const member = locals.member;
	if (!member) return jsonError(401, 'unauthenticated', 'Sign in with your wallet to continue.');
	setHeaders({ 'cache-control': 'private, no-store' });
	try {
		return json({ unread: await withDatabase((db) => unreadCount(db, member.address)) });
	} catch (err) {
		return jsonErrorFrom(err);
	}
};
