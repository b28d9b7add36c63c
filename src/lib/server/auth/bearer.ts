import { timingSafeEqual } from 'node:crypto';

/**
 * Whether `authorization` is `Bearer <secret>` (Vercel Cron's convention for CRON_SECRET). Compared in
 * constant time, so the answer's timing says nothing about the secret; a null secret matches nothing.
 */
export function bearerMatches(authorization: string | null, secret: string | null): boolean {
	if (!secret || !authorization) return false;
	const given = Buffer.from(authorization);
	const expected = Buffer.from(`Bearer ${secret}`);
	return given.length === expected.length && timingSafeEqual(given, expected);
}
