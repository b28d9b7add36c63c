import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether `authorization` is exactly `Bearer <secret>`: the one check for CRON_SECRET (Vercel Cron's
 * convention) and METRICS_TOKEN. Both sides are hashed to 32 bytes and compared in constant time, so
 * the answer's timing says nothing about the secret, not even its length; a null or empty secret
 * matches nothing.
 */
export function bearerMatches(authorization: string | null, secret: string | null): boolean {
	if (!secret || !authorization) return false;
	return timingSafeEqual(digest(authorization), digest(`Bearer ${secret}`));
}
