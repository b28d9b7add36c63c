import { json } from '@sveltejs/kit';
import { jsonError, jsonErrorFrom, readLimitedText } from '$lib/server/platform/http';
import {
	SUBSCRIPTION_MAX_BYTES,
	parseSubscription,
	removeSubscription,
	saveSubscription
} from '$lib/server/notifications/subscriptions';
import { runtime, withDatabase } from '$lib/server/platform/runtime';
import type { RequestHandler } from './$types';

/** The JSON body of at most 4 KiB, or the 400 that says why not. */
async function readJson(request: Request): Promise<{ value: unknown } | Response> {
	const text = await readLimitedText(request, SUBSCRIPTION_MAX_BYTES);
	if (text === null)
		return jsonError(400, 'invalid_request', `The body must be JSON of at most ${SUBSCRIPTION_MAX_BYTES} bytes.`);
	try {
		return { value: JSON.parse(text) };
	} catch {
		return jsonError(400, 'invalid_request', 'The body is not JSON.');
	}
}

const signedOut = () => jsonError(401, 'unauthenticated', 'Sign in with your wallet to continue.');

/** Saves this browser's push subscription for the signed-in member (docs/notifications.md). */
export const POST: RequestHandler = async ({ locals, request }) => {
	const member = locals.member;
	if (!member) return signedOut();
	const { notifications } = runtime().config;
	if (!notifications.push) return jsonError(404, 'not_found', 'This portal does not send push notifications.');
	const body = await readJson(request);
	if (body instanceof Response) return body;
	const subscription = parseSubscription(body.value, notifications.pushServiceOrigins);
	if (!subscription.ok) return jsonError(400, subscription.code, subscription.message);
	try {
		const id = await withDatabase((db) => saveSubscription(db, member.address, subscription.value));
		if (id === null)
			return jsonError(
				409,
				'conflict',
				'This push endpoint is subscribed for another member; it is theirs until they stop it.'
			);
		return json({ id }, { status: 201 });
	} catch (err) {
		return jsonErrorFrom(err);
	}
};

/** Forgets this browser's subscription (`{ "endpoint" }`): 204 whether or not it was saved. */
export const DELETE: RequestHandler = async ({ locals, request }) => {
	const member = locals.member;
	if (!member) return signedOut();
	const body = await readJson(request);
	if (body instanceof Response) return body;
	const raw = (body.value as { endpoint?: unknown } | null)?.endpoint;
	if (typeof raw !== 'string' || raw.length > 2048 || !URL.canParse(raw))
		return jsonError(400, 'invalid_request', 'The body must be { "endpoint": "https://…" }.');
	try {
		await withDatabase((db) => removeSubscription(db, member.address, new URL(raw).href));
		return new Response(null, { status: 204 });
	} catch (err) {
		return jsonErrorFrom(err);
	}
};
