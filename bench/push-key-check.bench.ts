// The subscription key check of issue 54 (src/lib/server/notifications/subscriptions.ts): a POST
// /api/push/subscriptions body parsed as it is now (p256dh decoded by node:crypto as a P-256 point)
// against the same parse without that check (the schema as it was), in one process, short runs.
// Usage: npx vitest bench --run --project unit bench/push-key-check.bench.ts
import { createECDH, randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { bench, describe } from 'vitest';
import { parseSubscription } from '../src/lib/server/notifications/subscriptions';

const origins = ['https://fcm.googleapis.com'];
const ecdh = createECDH('prime256v1');
ecdh.generateKeys();
const body = {
	endpoint: 'https://fcm.googleapis.com/fcm/send/abc:def',
	keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') }
};

// The schema before the check: lengths only.
const base64url = (bytes: number) =>
	v.pipe(
		v.string(),
		v.regex(/^[A-Za-z0-9_-]+=*$/),
		v.check((s) => Buffer.from(s.replace(/=+$/, ''), 'base64url').length === bytes)
	);
const lengthsOnly = v.object({
	endpoint: v.pipe(v.string(), v.maxLength(2048)),
	keys: v.object({ p256dh: base64url(65), auth: base64url(16) })
});

describe('parsing a push subscription', () => {
	bench(
		'with the P-256 point check (now)',
		() => {
			if (!parseSubscription(body, origins).ok) throw new Error('refused');
		},
		{ time: 1000 }
	);
	bench(
		'lengths only (before issue 54)',
		() => {
			if (!v.safeParse(lengthsOnly, body).success || !URL.canParse(body.endpoint)) throw new Error('refused');
		},
		{ time: 1000 }
	);
});
