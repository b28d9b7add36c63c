import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client';
import {
	applicationEvents,
	webhookDeliveries,
	type Application,
	type ApplicationEvent,
	type CheckIn
} from '../db/schema';
import type { OutboxTargets } from '../platform/outbox-targets';
import { noteOutboxRows } from '../outbox/written';

/** The events of docs/webhooks.md. */
export const WEBHOOK_EVENT_TYPES = [
	'application.submitted',
	'application.resubmitted',
	'application.transitioned',
	'application.withdrawn',
	'application.note_added',
	'application.voted',
	'checkin.created'
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookEvent {
	type: WebhookEventType;
	data: Record<string, unknown>;
	/** A staged decision's round: the row waits for its release (programs/release.ts); null or absent: it goes now. */
	heldRoundId?: number | null;
}

/** The programme and round an application belongs to, as every event about it names them (docs/webhooks.md). */
export interface EventPlace {
	program: { slug: string; name: string };
	round: { id: number; name: string };
}

/** A transaction or the database itself: whatever the change is being written with. */
export type Writer = Pick<Database, 'insert'>;

/** The part of the outbox targets (platform/outbox-targets.ts) a webhook event is written for: its endpoints. */
export type WebhookTargets = Pick<OutboxTargets, 'webhooks'>;

/** Whether any WEBHOOK_URLS entry is set: none means webhooks are off and enqueueing costs nothing. */
export const webhooksOn = (to: WebhookTargets) => to.webhooks.length > 0;

/** One outbox row for every event and URL; each event gets one id (the webhook-id) for all its URLs. */
function outboxRows(to: WebhookTargets, events: readonly WebhookEvent[]) {
	noteOutboxRows(events.length * to.webhooks.length);
	return events.flatMap(({ type, data, heldRoundId }) => {
		const eventId = randomUUID();
		return to.webhooks.map((e) => ({
			eventId,
			eventType: type,
			data,
			urlHash: e.hash,
			urlHost: e.host,
			heldRoundId: heldRoundId ?? null
		}));
	});
}

/**
 * Where one event goes, for a statement that builds the event's data itself in SQL (a vote's counts, which
 * only the statement that writes the vote knows): one shared event id and one target a URL; none when off.
 */
export function eventTargets(to: WebhookTargets): { eventId: string; urlHash: string; urlHost: string }[] {
	noteOutboxRows(to.webhooks.length);
	const eventId = randomUUID();
	return to.webhooks.map((e) => ({ eventId, urlHash: e.hash, urlHost: e.host }));
}

/**
 * Writes `events` to the outbox with `tx`, the transaction of the change they report, so that they
 * commit or roll back with it: one multi-row INSERT for every event and URL; nothing when webhooks are off.
 */
export async function enqueueWebhookEvents(
	tx: Writer,
	to: WebhookTargets,
	events: readonly WebhookEvent[]
): Promise<void> {
	if (!webhooksOn(to) || events.length === 0) return;
	await tx.insert(webhookDeliveries).values(outboxRows(to, events));
}

/**
 * The same rows as a WITH clause for the statement that writes the change itself
 * (`tx.with(outbox).insert(...)`): Postgres runs a data-modifying WITH once, in that statement, so the
 * events cost no statement of their own and still commit or roll back with the change. Null when
 * webhooks are off. For events whose data is known before the change is written (a transition's).
 */
function webhookOutbox(tx: Pick<Database, '$with' | 'insert'>, to: WebhookTargets, events: readonly WebhookEvent[]) {
	if (!webhooksOn(to) || events.length === 0) return null;
	return tx.$with('webhook_outbox', {}).as(tx.insert(webhookDeliveries).values(outboxRows(to, events)).getSQL());
}

/**
 * Writes audit rows and the webhook events that report them in one statement (the events in its WITH
 * clause: webhooks add no statement to a transition), and returns the audit rows.
 */
export function insertAuditWithEvents(
	tx: Pick<Database, '$with' | 'insert' | 'with'>,
	to: WebhookTargets,
	audits: (typeof applicationEvents.$inferInsert)[],
	events: readonly WebhookEvent[]
): Promise<ApplicationEvent[]> {
	const outbox = webhookOutbox(tx, to, events);
	return (outbox ? tx.with(outbox) : tx).insert(applicationEvents).values(audits).returning();
}

export const enqueueWebhookEvent = (tx: Writer, to: WebhookTargets, event: WebhookEvent) =>
	enqueueWebhookEvents(tx, to, [event]);

const placeOf = (p: EventPlace) => ({
	program: { slug: p.program.slug, name: p.program.name },
	round: { id: p.round.id, name: p.round.name }
});

const applicationData = (a: Application, p: EventPlace) => ({
	applicationId: a.id,
	...placeOf(p),
	applicant: a.applicantAddress,
	displayName: a.displayName,
	motivation: a.motivation,
	contact: a.contact,
	review: a.review,
	allowlist: a.allowlist,
	distribution: a.distribution,
	createdAt: a.createdAt.toISOString(),
	updatedAt: a.updatedAt.toISOString()
});

export const applicationSubmitted = (a: Application, p: EventPlace): WebhookEvent => ({
	type: 'application.submitted',
	data: { ...applicationData(a, p), answers: a.answers }
});

export const applicationResubmitted = (a: Application, p: EventPlace): WebhookEvent => ({
	type: 'application.resubmitted',
	data: { ...applicationData(a, p), answers: a.answers }
});

/** A move of one field; its audit row is written in the same transaction (timestamp = its created_at). */
export const applicationTransitioned = (
	a: Application,
	e: Pick<ApplicationEvent, 'field' | 'fromState' | 'toState' | 'reason' | 'txHash' | 'executorAddress'>,
	p: EventPlace,
	heldRoundId: number | null = null
): WebhookEvent => ({
	type: 'application.transitioned',
	heldRoundId,
	data: {
		applicationId: a.id,
		...placeOf(p),
		applicant: a.applicantAddress,
		displayName: a.displayName,
		field: e.field,
		from: e.fromState,
		to: e.toState,
		reason: e.reason,
		txHash: e.txHash,
		executor: e.executorAddress
	}
});

/** The applicant withdrew their application (issue 58): its audit row's from-state and reason. */
export const applicationWithdrawn = (
	a: Application,
	e: Pick<ApplicationEvent, 'fromState' | 'reason' | 'executorAddress' | 'createdAt'>,
	p: EventPlace
): WebhookEvent => ({
	type: 'application.withdrawn',
	data: {
		applicationId: a.id,
		...placeOf(p),
		applicant: a.applicantAddress,
		displayName: a.displayName,
		from: e.fromState,
		reason: e.reason,
		executor: e.executorAddress,
		withdrawnAt: e.createdAt.toISOString()
	}
});

/** A reviewer note: which application and who, never the note's text (it stays in the admin screen). */
export const noteAdded = (
	note: {
		id: string | number;
		applicationId: string;
		authorAddress: string;
		createdAt: Date;
	},
	p?: EventPlace | null
): WebhookEvent => ({
	type: 'application.note_added',
	data: {
		applicationId: note.applicationId,
		...(p ? placeOf(p) : {}),
		noteId: String(note.id),
		author: note.authorAddress,
		createdAt: note.createdAt.toISOString()
	}
});

export const checkinCreated = (c: CheckIn): WebhookEvent => ({
	type: 'checkin.created',
	data: { checkinId: c.id, member: c.memberAddress, note: c.note, createdAt: c.createdAt.toISOString() }
});
