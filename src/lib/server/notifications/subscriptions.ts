import { and, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { pushSubscriptions } from '../db/schema';
import { pushOriginAllowed } from '../platform/notification-config';
import type { Failed, Result } from '$lib/platform/result';

/** A PushSubscription's JSON is a few hundred bytes; more is not one. */
export const SUBSCRIPTION_MAX_BYTES = 4096;

const base64url = (bytes: number) =>
	v.pipe(
		v.string(),
		v.regex(/^[A-Za-z0-9_-]+=*$/),
		v.check((s) => Buffer.from(s.replace(/=+$/, ''), 'base64url').length === bytes)
	);

// RFC 8291: the browser's P-256 public key (65 bytes, uncompressed) and its 16-byte auth secret.
const subscriptionSchema = v.object({
	endpoint: v.pipe(v.string(), v.maxLength(2048)),
	keys: v.object({ p256dh: base64url(65), auth: base64url(16) })
});

export type PushSubscriptionInput = v.InferOutput<typeof subscriptionSchema>;

type Refusal = Failed<'invalid_request'>;
const refused = (message: string): Refusal => ({ ok: false, code: 'invalid_request', message });

/** The endpoint as a URL, when it is one and its origin is one the operator allows (nothing else may be reached through it). */
export function parseEndpoint(raw: unknown, allowedOrigins: readonly string[]): Result<URL, Refusal> {
	let url: URL;
	try {
		url = new URL(String(raw));
	} catch {
		return refused('The endpoint must be a URL.');
	}
	if (url.username || url.password || !pushOriginAllowed(url, allowedOrigins))
		return refused('The endpoint is not one of the push services this portal sends to.');
	return { ok: true, value: url };
}

/** A browser's PushSubscription JSON, checked: its shape, its keys' sizes and its endpoint's origin. */
export function parseSubscription(
	raw: unknown,
	allowedOrigins: readonly string[]
): Result<PushSubscriptionInput, Refusal> {
	const parsed = v.safeParse(subscriptionSchema, raw);
	if (!parsed.success)
		return refused(
			'The body must be a PushSubscription: { "endpoint", "keys": { "p256dh", "auth" } } (base64url keys).'
		);
	const endpoint = parseEndpoint(parsed.output.endpoint, allowedOrigins);
	if (!endpoint.ok) return endpoint;
	return { ok: true, value: { ...parsed.output, endpoint: endpoint.value.href } };
}

/**
 * Saves the member's subscription; an endpoint already saved (the same browser subscribing again, or
 * passing to another member who signed in on it) is taken over with its new keys.
 */
export async function saveSubscription(db: Database, address: string, s: PushSubscriptionInput): Promise<number> {
	const [row] = await db
		.insert(pushSubscriptions)
		.values({ memberAddress: address, endpoint: s.endpoint, p256dh: s.keys.p256dh, auth: s.keys.auth })
		.onConflictDoUpdate({
			target: pushSubscriptions.endpoint,
			set: {
				memberAddress: address,
				p256dh: s.keys.p256dh,
				auth: s.keys.auth,
				failures: 0,
				createdAt: sql`now()`
			}
		})
		.returning({ id: pushSubscriptions.id });
	return row!.id;
}

/** Forgets the member's own subscription at `endpoint` (another member's stays: 204 either way). */
export async function removeSubscription(db: Database, address: string, endpoint: string): Promise<void> {
	await db
		.delete(pushSubscriptions)
		.where(and(eq(pushSubscriptions.memberAddress, address), eq(pushSubscriptions.endpoint, endpoint)));
}

/** How many browsers the member has subscribed. */
export async function subscriptionCount(db: Database, address: string): Promise<number> {
	const rows = await db
		.select({ id: pushSubscriptions.id })
		.from(pushSubscriptions)
		.where(eq(pushSubscriptions.memberAddress, address));
	return rows.length;
}
