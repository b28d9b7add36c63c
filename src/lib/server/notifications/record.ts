import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import {
	applications,
	memberEmails,
	members,
	notifications,
	programs,
	pushSubscriptions,
	webhookDeliveries as w
} from '../db/schema';
import { rowsOf } from '../db/rows';
import { baseLocale, isLocale, type Locale } from '$lib/i18n/locales';
import { noteOutboxRows } from '../outbox/written';
import type { OutboxTargets } from '../platform/outbox-targets';
import { inProgram, notificationText, type NotificationChange } from './notification-text';
import { programInLocale, type ProgramTranslations } from '$lib/programs/programs';

/** The part of the outbox targets (platform/outbox-targets.ts) a notification is written for: push and e-mail, each on or off. */
export type NotificationTargets = Pick<OutboxTargets, 'push' | 'email'>;

/** One applicant told of one change of their application. */
export interface NotificationFor {
	recipient: string;
	applicationId: string | null;
	change: NotificationChange;
	/**
	 * A staged decision's round (programs/release.ts): the inbox row and its push and e-mail rows wait for its
	 * release; null or absent: they go now.
	 */
	heldRoundId?: number | null;
}

/**
 * Each recipient's locale (members.locale: that of their last signed-in page visit; the base locale for an
 * address that is no member yet) and, while the portal has more than one programme, the programme of each
 * application (its name and translations), read together in one statement in the change's transaction.
 */
async function recipientsAndPrograms(
	tx: Pick<Database, 'execute'>,
	addresses: readonly string[],
	applicationIds: readonly string[]
) {
	const [found] = rowsOf<{ locales: Record<string, string> | null; programs: Record<string, Program> | null }>(
		await tx.execute(sql`select
			(select jsonb_object_agg(address, locale) from ${members}
				where address in (select jsonb_array_elements_text(${JSON.stringify([...new Set(addresses)])}::jsonb))) as locales,
			(select jsonb_object_agg(a.id, jsonb_build_object('name', p.name, 'translations', p.translations))
				from ${applications} a join ${programs} p on p.id = a.program_id
				where a.id in (select jsonb_array_elements_text(${JSON.stringify([...new Set(applicationIds)])}::jsonb)::uuid)
					and exists (select 1 from ${programs} other where other.id <> p.id)) as programs`)
	);
	const locales = found?.locales ?? {};
	const named = found?.programs ?? {};
	return {
		localeOf: (address: string): Locale => {
			const locale = Object.hasOwn(locales, address) ? locales[address] : undefined;
			return locale !== undefined && isLocale(locale) ? locale : baseLocale;
		},
		programOf: (applicationId: string | null, locale: Locale): string | null =>
			applicationId !== null && Object.hasOwn(named, applicationId)
				? programInLocale(named[applicationId]!, locale).name
				: null
	};
}

type Program = { name: string; translations: ProgramTranslations };

/**
 * Writes the notifications of a change with `tx`, the change's own transaction, in one statement:
 * one row each, and for each an outbox row per push subscription of its recipient and one for their
 * verified e-mail (the channels `on` has on). They commit or roll back with the change; the worker sends.
 *
 * The title and body are written in the recipient's language (docs/decisions/0043-translations-by-url-prefix.md), whoever made the change and in whatever language: the inbox, the push message and the
 * e-mail all show these same words, as a letter is written once in the language of the one it is for.
 */
export async function recordNotifications(
	tx: Pick<Database, 'execute'>,
	on: NotificationTargets,
	items: readonly NotificationFor[]
) {
	if (items.length === 0) return;
	const { localeOf, programOf } = await recipientsAndPrograms(
		tx,
		items.map((i) => i.recipient.toLowerCase()),
		items.flatMap((i) => (i.applicationId === null ? [] : [i.applicationId]))
	);
	const rows = JSON.stringify(
		items.map(({ recipient, applicationId, change, heldRoundId }) => {
			const locale = localeOf(recipient.toLowerCase());
			const { title, body } = inProgram(notificationText(change, locale), programOf(applicationId, locale), locale);
			return {
				recipient: recipient.toLowerCase(),
				application_id: applicationId,
				kind: change.kind,
				title,
				body,
				held_round_id: heldRoundId ?? null
			};
		})
	);
	if (on.push || on.email) noteOutboxRows(items.length);
	const push = on.push
		? sql`, push as (insert into ${w} (event_id, event_type, data, channel, held_round_id)
			select gen_random_uuid(), 'notification.push', jsonb_build_object('notificationId', n.id, 'subscriptionId', s.id), 'push', n.held_round_id
			from n join ${pushSubscriptions} s on s.member_address = n.recipient_address)`
		: sql``;
	const email = on.email
		? sql`, mail as (insert into ${w} (event_id, event_type, data, channel, held_round_id)
			select gen_random_uuid(), 'notification.email', jsonb_build_object('notificationId', n.id), 'email', n.held_round_id
			from n join ${memberEmails} e on e.address = n.recipient_address and e.verified_at is not null)`
		: sql``;
	await tx.execute(sql`with n as (
		insert into ${notifications} (recipient_address, application_id, kind, title, body, held_round_id)
		select r.recipient, r.application_id, r.kind, r.title, r.body, r.held_round_id
		from jsonb_to_recordset(${rows}::jsonb)
			as r(recipient text, application_id uuid, kind text, title text, body text, held_round_id integer)
		returning id, recipient_address, held_round_id)${push}${email}
		select 1`);
}
