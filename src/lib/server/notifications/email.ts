import { and, eq, isNull } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { memberEmails, webhookDeliveries } from '../db/schema';
import { validate } from '../platform/forms';
import { fieldError, notFound, rateLimited, type Outcome } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import { readToken, tokenMatches } from './tokens';
import { noteOutboxRows } from '../outbox/written';
import { m } from '$lib/paraglide/messages';

export const EMAIL_FIELDS = ['email'] as const;

/** How long a verification link works. */
export const VERIFY_VALID_MS = 24 * 60 * 60 * 1000;

// Messages as functions: said in the language of the page the form was posted from.
const emailSchema = v.object({
	email: v.pipe(
		v.string(() => m.notify_email_not_text()),
		v.trim(),
		v.nonEmpty(() => m.notify_email_empty()),
		v.maxLength(254, () => m.notify_email_too_long()),
		v.email(() => m.notify_email_invalid())
	)
});

/** The member's own address and whether it is verified; null when none. Shown to nobody else. */
export async function emailOf(db: Database, address: string) {
	const [row] = await db
		.select({ email: memberEmails.email, verifiedAt: memberEmails.verifiedAt })
		.from(memberEmails)
		.where(eq(memberEmails.address, address));
	return row ?? null;
}

/**
 * addEmail: stores the member's address unverified and queues the message with its one-time link (the
 * worker sends it). Order: mail configured → the `email` limit (5 in 24 h) → validate → one transaction.
 * The same address, already verified, is kept as it is.
 */
export async function addEmail(
	db: Database,
	address: string,
	input: unknown,
	mailOn: boolean
): Promise<Outcome<{ email: string; verified: boolean }>> {
	if (!mailOn) return notFound(m.notify_email_off());
	const limit = await consume(db, address, 'email');
	if (!limit.ok) return rateLimited(limit);
	const parsed = validate(emailSchema, input);
	if (!parsed.ok) return parsed;
	const email = parsed.value.email;
	const current = await emailOf(db, address);
	if (current?.verifiedAt && current.email.toLowerCase() === email.toLowerCase())
		return { ok: true, value: { email: current.email, verified: true } };
	// created_at in whole ms, as the link carries it: a new one makes every earlier link useless.
	const row = { address, email, verifiedAt: null, createdAt: new Date() };
	await db.transaction(async (tx) => {
		await tx.insert(memberEmails).values(row).onConflictDoUpdate({ target: memberEmails.address, set: row });
		await tx.insert(webhookDeliveries).values({
			eventId: crypto.randomUUID(),
			eventType: 'email.verify',
			data: { address },
			channel: 'email'
		});
	});
	noteOutboxRows(1);
	return { ok: true, value: { email, verified: false } };
}

// In the language of the page the link opened (/es/inbox/verify?token=…).
const badLink = () => fieldError('token', m.notify_link_bad());

/** verifyEmail: the one-time link of GET /inbox/verify; within 24 h of the address being added, once. */
export async function verifyEmail(db: Database, token: unknown, secrets: readonly string[]): Promise<Outcome<null>> {
	const read = readToken(token);
	if (!read) return badLink();
	const [row] = await db.select().from(memberEmails).where(eq(memberEmails.address, read.address));
	if (!row || row.verifiedAt || row.createdAt.getTime() !== read.createdAtMs) return badLink();
	if (Date.now() - read.createdAtMs > VERIFY_VALID_MS) return badLink();
	if (!tokenMatches(secrets, 'verify', token as string, { ...read, email: row.email })) return badLink();
	const done = await db
		.update(memberEmails)
		.set({ verifiedAt: new Date() })
		.where(
			and(
				eq(memberEmails.address, row.address),
				eq(memberEmails.createdAt, row.createdAt),
				isNull(memberEmails.verifiedAt)
			)
		)
		.returning({ address: memberEmails.address });
	return done.length ? { ok: true, value: null } : badLink();
}

/** What an unsubscribe MAC is checked against when the address has no e-mail (never one: no @). */
const NO_EMAIL = 'no e-mail';

/**
 * unsubscribe: the link of every notification e-mail (and its RFC 8058 one-click POST): forgets the
 * address at once. A link for an address already forgotten (or replaced) changes nothing and says so.
 */
export async function unsubscribe(
	db: Database,
	token: unknown,
	secrets: readonly string[]
): Promise<Outcome<{ stopped: boolean }>> {
	const read = readToken(token);
	if (!read) return badLink();
	const [row] = await db.select().from(memberEmails).where(eq(memberEmails.address, read.address));
	// The MAC covers the e-mail, which the link does not carry: it is checked against the row's, or a
	// stand-in when there is none, and a token that does not match is answered as a link for an address
	// no longer there. So a forged token costs and answers the same whether or not the wallet has an
	// e-mail: nobody learns that without signing in (issue 54).
	const claims = { address: read.address, email: row?.email ?? NO_EMAIL, createdAtMs: 0 };
	if (!tokenMatches(secrets, 'unsubscribe', token as string, claims) || !row)
		return { ok: true, value: { stopped: false } };
	await db.delete(memberEmails).where(and(eq(memberEmails.address, row.address), eq(memberEmails.email, row.email)));
	return { ok: true, value: { stopped: true } };
}

/** removeEmail: the member forgets their address (POST /inbox?/emailRemove). */
export async function removeEmail(db: Database, address: string): Promise<void> {
	await db.delete(memberEmails).where(eq(memberEmails.address, address));
}
