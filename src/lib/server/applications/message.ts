import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import {
	applicantMessages,
	applications,
	memberEmails,
	members,
	notifications,
	programs,
	pushSubscriptions,
	rounds,
	webhookDeliveries as w
} from '../db/schema';
import { fieldError, type Outcome } from '../platform/outcome';
import { noteNotificationRows, type NotificationTargets } from '../notifications/record';
import { parseWords } from '../notifications/templates';
import { parseTableQuery, tableFilter } from './review-table';
import { BULK_MAX, UUID_ANY_CASE } from '$lib/platform/limits';
import { community } from '$lib/branding/community';
import { brandingIn } from '$lib/branding/saved';
import { savedCommunity } from '../branding/settings';
import { fillMarkup, markupText, parseMarkup } from '$lib/notifications/markup';
import { baseLocale } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';

/** The fields of `POST /admin?/message` besides the review table's filter (its query's names). */
export const MESSAGE_FIELDS = ['applicationIds', 'subject', 'body', 'confirm', 'sendKey'] as const;

/** The placeholders an admin's message may use: what each application has (no reason, asks or date). */
export const MESSAGE_PLACEHOLDERS = ['name', 'community', 'program', 'round', 'link'] as const;

/**
 * Who is written to: the chosen applications, or every one the review table's filter shows; for an admin of
 * some programmes (`programIds`, issue 59), of those programmes only.
 */
export type Chosen = ({ ids: string[] } | { filter: URLSearchParams }) & { programIds?: readonly number[] };

export interface MessageInput {
	chosen: Chosen;
	subject: string;
	body: string;
	/** `confirm=yes`, posted by the confirm step (which says how many will be told); else that step is shown. */
	confirmed: boolean;
	/**
	 * The one-time key the confirm step handed out with its form (a UUID; required with `confirm=yes`): the
	 * message is sent once per key, so the same confirm posted twice (a double click, a retried request,
	 * back and submit again) sends nothing the second time. Null when none was posted: sent, unguarded.
	 */
	sendKey: string | null;
}

/**
 * The message's fields checked: `applicationIds` (1–100 ids) or, without them, the filter (`filter`,
 * the review table's query); a subject and a body as templates have them, with `MESSAGE_PLACEHOLDERS`.
 */
export function parseMessage(input: Record<string, unknown>, filter: URLSearchParams): Outcome<MessageInput> {
	let chosen: Chosen;
	const raw = input.applicationIds;
	if (raw === undefined || raw === '') chosen = { filter };
	else {
		const list = Array.isArray(raw) ? raw : [raw];
		if (list.length > BULK_MAX) return fieldError('applicationIds', m.admin_select_at_most({ count: BULK_MAX }));
		if (!list.every((id) => typeof id === 'string' && UUID_ANY_CASE.test(id)))
			return fieldError('applicationIds', m.admin_message_ids_invalid());
		chosen = { ids: [...new Set((list as string[]).map((id) => id.toLowerCase()))] };
	}
	const words = parseWords(input, MESSAGE_PLACEHOLDERS);
	if (!words.ok) return words;
	const { confirm, sendKey } = input;
	if (confirm !== undefined && confirm !== 'yes') return fieldError('confirm', m.admin_message_confirm_invalid());
	if (confirm !== 'yes') return { ok: true, value: { chosen, ...words.value, confirmed: false, sendKey: null } };
	// Without a key (a client posting the contract's fields alone) the message is sent, with no guard against a repeat.
	if (sendKey === undefined || sendKey === '')
		return { ok: true, value: { chosen, ...words.value, confirmed: true, sendKey: null } };
	if (typeof sendKey !== 'string' || !UUID_ANY_CASE.test(sendKey))
		return fieldError('sendKey', m.admin_message_key_invalid());
	return { ok: true, value: { chosen, ...words.value, confirmed: true, sendKey: sendKey.toLowerCase() } };
}

/** The applications chosen, as a condition on `applications`. */
function whereChosen(chosen: Chosen): SQL | undefined {
	const where = 'ids' in chosen ? [inArray(applications.id, chosen.ids)] : tableFilter(parseTableQuery(chosen.filter));
	if (chosen.programIds) where.push(sql`${applications.programId} = any(${`{${chosen.programIds.join(',')}}`}::int[])`);
	return where.length ? and(...where) : undefined;
}

/** The one-time key a message's confirm step hands out with its form (`MessageInput.sendKey`). */
export const newSendKey = (): string => randomUUID();

/** How many applicants a message would tell: one each, however many of their applications are chosen. */
export async function messageCount(db: Database, chosen: Chosen): Promise<number> {
	const where = whereChosen(chosen);
	const [row] = rowsOf<{ n: number }>(
		await db.execute(
			sql`select count(distinct ${applications.applicantAddress})::int as n from ${applications} where ${where ?? sql`true`}`
		)
	);
	return row?.n ?? 0;
}

/** A placeholder's value as JSON string content (what goes between the quotes), for a replace in jsonb text. */
const jsonText = (value: SQL) => sql`substr(to_jsonb(${value})::text, 2, length(to_jsonb(${value})::text) - 2)`;

/**
 * Sends an admin's message: one notification to each chosen applicant (their newest chosen application),
 * in the inbox, and an outbox row per push subscription and for a verified e-mail where the channels are
 * on; the message itself in `applicant_messages`, which each notification (and so each application's
 * history) points at. One statement, whatever the number: the request returns at once, the outbox sends.
 * The placeholders are filled in the statement from each application's own row, as text.
 *
 * Once per `sendKey`: the message row is written `on conflict (sent_by, send_key) do nothing` and every
 * other row hangs on it, so a second send with the same key (even one racing the first, which waits for
 * it on the unique index) writes nothing and answers with the first send's count, `again: true`.
 */
export async function sendMessage(
	db: Database,
	on: NotificationTargets,
	by: string,
	input: MessageInput
): Promise<Outcome<{ count: number; messageId: number; again: boolean }>> {
	const where = whereChosen(input.chosen) ?? sql`true`;
	// {community} is the same for everyone (the saved name, /admin/settings); {link} stays in the markup for
	// each page that shows it.
	const communityName = brandingIn(community, await savedCommunity(db), baseLocale).name;
	const markup = fillMarkup(parseMarkup(input.body), { community: communityName });
	const bodyText = markupText(markup, '{link}');
	const subject = input.subject.replaceAll('{community}', communityName);
	const fill = (text: SQL, json: boolean) => {
		const value = (v: SQL) => (json ? jsonText(v) : v);
		return sql`replace(replace(replace(${text}, '{name}', ${value(sql`c.display_name`)}), '{program}', ${value(sql`c.program`)}), '{round}', ${value(sql`c.round`)})`;
	};
	const push = on.push
		? sql`, push as (insert into ${w} (event_id, event_type, data, channel)
			select gen_random_uuid(), 'notification.push', jsonb_build_object('notificationId', n.id, 'subscriptionId', s.id), 'push'
			from n join ${pushSubscriptions} s on s.member_address = n.recipient_address)`
		: sql``;
	const email = on.email
		? sql`, mail as (insert into ${w} (event_id, event_type, data, channel)
			select gen_random_uuid(), 'notification.email', jsonb_build_object('notificationId', n.id), 'email'
			from n join ${memberEmails} e on e.address = n.recipient_address and e.verified_at is not null)`
		: sql``;
	const [row] = rowsOf<{ count: number; id: number | null }>(
		await db.execute(sql`with c as (
			select distinct on (${applications.applicantAddress}) ${applications.id} as id,
				${applications.applicantAddress} as applicant_address, ${applications.displayName} as display_name,
				coalesce(mb.locale, ${baseLocale}) as locale,
				coalesce(nullif(trim(p.translations -> coalesce(mb.locale, ${baseLocale}) ->> 'name'), ''), p.name) as program,
				coalesce(r.name, '') as round
			from ${applications}
			join ${programs} p on p.id = ${applications.programId}
			left join ${rounds} r on r.id = ${applications.roundId}
			left join ${members} mb on mb.address = ${applications.applicantAddress}
			where ${where}
			order by ${applications.applicantAddress}, ${applications.createdAt} desc, ${applications.id}
		), msg as (
			insert into ${applicantMessages} (subject, body, sent_by, recipients, send_key)
			select ${input.subject}, ${input.body}, ${by}, (select count(*) from c), ${input.sendKey}::uuid
			where exists (select 1 from c)
			on conflict (sent_by, send_key) do nothing
			returning id
		), n as (
			insert into ${notifications} (recipient_address, application_id, kind, title, body, markup, message_id)
			select c.applicant_address, c.id, 'admin.message', ${fill(sql`${subject}`, false)},
				replace(${fill(sql`${bodyText}`, false)}, '{link}', case when c.locale = ${baseLocale} then '/apply' else '/' || c.locale || '/apply' end),
				${fill(sql`${JSON.stringify(markup)}`, true)}::jsonb, msg.id
			from c cross join msg
			returning id, recipient_address)${push}${email}
		select (select count(*) from n)::int as count, (select id from msg) as id`)
	);
	const count = row?.count ?? 0;
	if (count === 0 || row?.id == null) {
		// Nothing written: this key was sent already (the answer is that send's), or nobody matches.
		const [first] =
			input.sendKey === null
				? []
				: await db
						.select({ id: applicantMessages.id, recipients: applicantMessages.recipients })
						.from(applicantMessages)
						.where(and(eq(applicantMessages.sentBy, by), eq(applicantMessages.sendKey, input.sendKey)));
		if (first) return { ok: true, value: { count: first.recipients, messageId: first.id, again: true } };
		return fieldError('applicationIds', m.admin_message_none());
	}
	noteNotificationRows(on, count);
	return { ok: true, value: { count, messageId: Number(row.id), again: false } };
}

/** The admins' messages an application's applicant was sent about it, oldest first, for its history. */
export function messagesOf(db: Database, applicationId: string) {
	return db
		.select({
			id: applicantMessages.id,
			subject: applicantMessages.subject,
			sentBy: applicantMessages.sentBy,
			createdAt: applicantMessages.createdAt
		})
		.from(notifications)
		.innerJoin(applicantMessages, eq(applicantMessages.id, notifications.messageId))
		.where(and(eq(notifications.applicationId, applicationId), isNotNull(notifications.messageId)))
		.orderBy(notifications.id);
}
