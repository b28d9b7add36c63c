import { ECDH } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { pushSubscriptions } from '../db/schema';
import { pushOriginAllowed } from '../platform/notification-config';
import type { Failed, Result } from '$lib/platform/result';

/** A PushSubscription's JSON is a few hundred bytes; more is not one. */
export const SUBSCRIPTION_MAX_BYTES = 4096;

const decoded = (s: string) => Buffer.from(s.replace(/=+$/, ''), 'base64url');

const base64url = (bytes: number, check: (key: Buffer) => boolean = () => true) =>
	v.pipe(
		v.string(),
		v.maxLength(256),
		v.regex(/^[A-Za-z0-9_-]+=*$/),
		v.check((s) => {
			const key = decoded(s);
			return key.length === bytes && check(key);
		})
	);

/**
 * Whether `key` is what web-push will use it as: an uncompressed point (0x04, x, y) on P-256. A key of
 * the right length that is no point would make the sender's ECDH throw at every attempt (issue 54).
 */
export function isP256Point(key: Buffer): boolean {
	if (key.length !== 65 || key[0] !== 0x04) return false;
	try {
		ECDH.convertKey(key, 'prime256v1');
		return true;
	} catch {
		return false;
	}
}

// RFC 8291: the browser's P-256 public key (65 bytes, uncompressed, a point of the curve) and its 16-byte auth secret.
const subscriptionSchema = v.object({
	endpoint: v.pipe(v.string(), v.maxLength(2048)),
	keys: v.object({ p256dh: base64url(65, isP256Point), auth: base64url(16) })
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
			'The body must be a PushSubscription: { "endpoint", "keys": { "p256dh", "auth" } } (base64url keys: a P-256 point and 16 bytes).'
		);
	const endpoint = parseEndpoint(parsed.output.endpoint, allowedOrigins);
	if (!endpoint.ok) return endpoint;
	return { ok: true, value: { ...parsed.output, endpoint: endpoint.value.href } };
}

/**
 * Saves the member's subscription; the member's own endpoint saved again (the same browser subscribing
 * again) gets its new keys. An endpoint another member holds is left alone: null (409), never re-assigned,
 * so nobody can take another's notifications by posting their endpoint (issue 54).
 */
export async function saveSubscription(
	db: Database,
	address: string,
	s: PushSubscriptionInput
): Promise<number | null> {
	const [row] = await db
		.insert(pushSubscriptions)
		.values({ memberAddress: address, endpoint: s.endpoint, p256dh: s.keys.p256dh, auth: s.keys.auth })
		.onConflictDoUpdate({
			target: pushSubscriptions.endpoint,
			set: { p256dh: s.keys.p256dh, auth: s.keys.auth, failures: 0, createdAt: sql`now()` },
			setWhere: eq(pushSubscriptions.memberAddress, address)
		})
		.returning({ id: pushSubscriptions.id });
	return row?.id ?? null;
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
