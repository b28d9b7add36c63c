import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import {
	applications,
	communitySettings,
	memberEmails,
	members,
	messageTemplates,
	notifications,
	programs,
	pushSubscriptions,
	rounds,
	webhookDeliveries as w
} from '../db/schema';
import { rowsOf } from '../db/rows';
import { executePrepared } from '../db/prepared';
import { baseLocale, isLocale, localizedPath, type Locale } from '$lib/i18n/locales';
import { community } from '$lib/branding/community';
import { brandingIn, type SavedCommunity } from '$lib/branding/saved';
import { isolate } from '$lib/notifications/isolate';
import type { Markup, PlaceholderValues } from '$lib/notifications/markup';
import { defaultTemplate, eventOf, renderTemplate, type Template } from './templates';
import { noteOutboxRows } from '../outbox/written';
import type { OutboxTargets } from '../platform/outbox-targets';
import {
	asksInWords,
	dayInWords,
	inProgram,
	joinSentences,
	notificationText,
	type NotificationChange
} from './notification-text';
import { programInLocale, type ProgramTranslations } from '$lib/programs/programs';
import { roundInLocale } from '$lib/programs/round-name';

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
 * The recipients' locales, the applications' names and rounds, the templates and the community's saved
 * branding, in one statement (exported so that tests can EXPLAIN what it reads). The addresses and ids
 * are matched as `= any (array(...))`: written `in (select ...)`, the planner took the set-returning
 * function for 100 rows and scanned every member and every application for each change told, up to
 * tens of thousands of rows (bench/history/2026-12-05-launch-day-rollup-lock.md).
 */
export function recipientsStatement(addresses: readonly string[], applicationIds: readonly string[]) {
	return sql`select
		(select jsonb_object_agg(address, locale) from ${members}
			where address = any (array(select jsonb_array_elements_text(${JSON.stringify([...new Set(addresses)])}::jsonb)))) as locales,
		(select jsonb_object_agg(a.id, jsonb_build_object('displayName', a.display_name, 'name', p.name,
				'translations', p.translations, 'round', r.name))
			from ${applications} a join ${programs} p on p.id = a.program_id left join ${rounds} r on r.id = a.round_id
			where a.id = any (array(select jsonb_array_elements_text(${JSON.stringify([...new Set(applicationIds)])}::jsonb)::uuid))) as apps,
		exists (select 1 from ${programs} p1 join ${programs} p2 on p2.id <> p1.id) as several,
		(select jsonb_object_agg(event || '|' || locale, jsonb_build_object('subject', subject, 'body', body))
			from ${messageTemplates}) as templates,
		(select jsonb_build_object('name', name, 'description', description, 'links', links, 'accent', accent,
				'translations', translations, 'logoSha256', logo_sha256)
			from ${communitySettings} where id = 1) as saved`;
}

/**
 * Each recipient's locale (members.locale: that of their last signed-in page visit; the base locale for an
 * address that is no member yet), each application's name, programme and round (the programme named in a
 * title while the portal has more than one) and the community's saved message templates, read together
 * in one statement in the change's transaction.
 */
async function recipientsAndPrograms(
	tx: Pick<Database, '_'>,
	addresses: readonly string[],
	applicationIds: readonly string[]
) {
	const [found] = rowsOf<{
		locales: Record<string, string> | null;
		apps: Record<string, App> | null;
		several: boolean;
		templates: Record<string, Template> | null;
		saved: SavedCommunity | null;
	}>(
		// Prepared (db/prepared.ts), as the insert below: each is one round trip, not two, on every change told.
		await executePrepared(tx, 'notification_recipients', recipientsStatement(addresses, applicationIds))
	);
	const locales = found?.locales ?? {};
	const apps = found?.apps ?? {};
	const templates = found?.templates ?? {};
	const appOf = (applicationId: string | null) =>
		applicationId !== null && Object.hasOwn(apps, applicationId) ? apps[applicationId]! : null;
	return {
		localeOf: (address: string): Locale => {
			const locale = Object.hasOwn(locales, address) ? locales[address] : undefined;
			return locale !== undefined && isLocale(locale) ? locale : baseLocale;
		},
		programOf: (applicationId: string | null, locale: Locale): string | null => {
			const app = appOf(applicationId);
			return app && found?.several ? programInLocale(app, locale).name : null;
		},
		appOf,
		/** The community's name in the recipient's language, as /admin/settings saved it, else the build's. */
		communityOf: (locale: Locale): string => brandingIn(community, found?.saved ?? null, locale).name,
		templateOf: (event: string | null, locale: Locale): Template | null => {
			const key = `${event}|${locale}`;
			return event !== null && Object.hasOwn(templates, key) ? templates[key]! : null;
		}
	};
}

type App = Program & { displayName: string; round: string | null };

/**
 * The placeholders' values of one notification (templates.ts), in the recipient's language; each piece of
 * user text set apart (FSI … PDI), as notification-text.ts sets apart the portal's own words' pieces.
 */
function valuesOf(
	change: NotificationChange,
	app: App | null,
	locale: Locale,
	communityName: string
): PlaceholderValues {
	return {
		name: isolate(app?.displayName ?? ''),
		community: communityName,
		program: isolate(app ? programInLocale(app, locale).name : ''),
		round: isolate(app?.round ? roundInLocale(app.round, locale) : ''),
		reason: isolate(change.reason ?? ''),
		asks: joinSentences(asksInWords(change, locale), locale),
		reapplyAfter: change.reapplyAfter ? dayInWords(change.reapplyAfter, locale) : ''
	};
}

/** A notification's words: the community's template of its event in the recipient's language, else the portal's. */
function wordsOf(
	found: Recipients,
	change: NotificationChange,
	applicationId: string | null,
	locale: Locale
): { title: string; body: string; markup: Markup | null } {
	const template = found.templateOf(eventOf(change), locale);
	if (template) {
		const app = found.appOf(applicationId);
		const { title, body, markup } = renderTemplate(
			template,
			valuesOf(change, app, locale, found.communityOf(locale)),
			localizedPath('/apply', locale)
		);
		return { title, body, markup };
	}
	const { title, body } = inProgram(notificationText(change, locale), found.programOf(applicationId, locale), locale);
	return { title, body, markup: null };
}

type Program = { name: string; translations: ProgramTranslations };

/**
 * Notes `count` notifications written with their push and e-mail rows (where those channels are on), so that
 * a request on Vercel knows to start their first attempt (outbox/written.ts); for notifications written
 * outside `recordNotifications` (an admin's message to applicants, applications/message.ts).
 */
export function noteNotificationRows(on: NotificationTargets, count: number) {
	if ((on.push || on.email) && count > 0) noteOutboxRows(count);
}

/**
 * Writes the notifications of a change with `tx`, the change's own transaction, in one statement:
 * one row each, and for each an outbox row per push subscription of its recipient and one for their
 * verified e-mail (the channels `on` has on). They commit or roll back with the change; the worker sends.
 *
 * The title and body are written in the recipient's language (docs/decisions/0043-translations-by-url-prefix.md), whoever made the change and in whatever language: the inbox, the push message and the
 * e-mail all show these same words, as a letter is written once in the language of the one it is for.
 */
export async function recordNotifications(
	tx: Pick<Database, '_'>,
	on: NotificationTargets,
	items: readonly NotificationFor[]
) {
	if (items.length === 0) return;
	await writeNotifications(tx, on, items, await readRecipients(tx, items));
}

/** What the notifications of `items` are written from: their recipients' languages, applications and templates. */
export type Recipients = Awaited<ReturnType<typeof recipientsAndPrograms>>;

/**
 * recordNotifications' first statement on its own: what its words are made from. A caller that sends it in the
 * same tick as the statement writing the application it names (a new application, applications/submit.ts) sends
 * both in one write, and it reads that row: statements on a transaction's connection run in the order sent.
 */
export const readRecipients = (tx: Pick<Database, '_'>, items: readonly NotificationFor[]): Promise<Recipients> =>
	recipientsAndPrograms(
		tx,
		items.map((i) => i.recipient.toLowerCase()),
		items.flatMap((i) => (i.applicationId === null ? [] : [i.applicationId]))
	);

/** recordNotifications' second statement: the rows of `items`, in words made from `found` (readRecipients). */
export async function writeNotifications(
	tx: Pick<Database, '_'>,
	on: NotificationTargets,
	items: readonly NotificationFor[],
	found: Recipients
) {
	if (items.length === 0) return;
	const rows = JSON.stringify(
		items.map(({ recipient, applicationId, change, heldRoundId }) => {
			const locale = found.localeOf(recipient.toLowerCase());
			const { title, body, markup } = wordsOf(found, change, applicationId, locale);
			return {
				recipient: recipient.toLowerCase(),
				application_id: applicationId,
				kind: change.kind,
				title,
				body,
				markup,
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
	await executePrepared(
		tx,
		'record_notifications',
		sql`with n as (
		insert into ${notifications} (recipient_address, application_id, kind, title, body, markup, held_round_id)
		select r.recipient, r.application_id, r.kind, r.title, r.body, r.markup, r.held_round_id
		from jsonb_to_recordset(${rows}::jsonb)
			as r(recipient text, application_id uuid, kind text, title text, body text, markup jsonb, held_round_id integer)
		returning id, recipient_address, held_round_id)${push}${email}
		select 1`
	);
}

/**
 * At a release of a round whose decisions go out together (programs/release.ts), in its transaction and
 * before its held rows are let go: each application's decision is told as the community's
 * `decisions.released` message (docs/decisions/0051-a-release-tells-each-decision-once.md). The first held
 * inbox row of each application (its approve or reject: nothing is held before one) is rewritten in that
 * message's words, in its recipient's language as it is now, from the template saved for that language
 * else the portal's own, its placeholders filled from the decision (`{reason}`, `{reapplyAfter}`) and the
 * application. Its push and e-mail rows read the row when they are sent, so each channel says it once;
 * later held moves (the allowlist, tokens) go in their own words. Two statements. Returns how many.
 */
export async function tellReleasedDecisions(tx: Pick<Database, 'execute' | '_'>, roundId: number): Promise<number> {
	const held = rowsOf<{
		id: number;
		recipient: string;
		application_id: string;
		review: string;
		reason: string | null;
		reapply_after: string | null;
	}>(
		await tx.execute(sql`select distinct on (n.application_id) n.id, n.recipient_address as recipient,
				n.application_id, a.review, a.reapply_after,
				(select e.reason from application_events e where e.application_id = a.id and e.field = 'review'
					order by e.id desc limit 1) as reason
			from ${notifications} n join ${applications} a on a.id = n.application_id
			where n.held_round_id = ${roundId} and a.review in ('approved', 'rejected')
			order by n.application_id, n.id`)
	);
	if (held.length === 0) return 0;
	const found = await recipientsAndPrograms(
		tx,
		held.map((h) => h.recipient),
		held.map((h) => h.application_id)
	);
	const rows = JSON.stringify(
		held.map((h) => {
			const locale = found.localeOf(h.recipient);
			const change: NotificationChange = {
				kind: 'application.transitioned',
				field: 'review',
				to: h.review,
				reason: h.reason,
				reapplyAfter: h.review === 'rejected' && h.reapply_after ? new Date(h.reapply_after) : null
			};
			const template = found.templateOf('decisions.released', locale) ?? defaultTemplate('decisions.released', locale);
			const { title, body, markup } = renderTemplate(
				template,
				valuesOf(change, found.appOf(h.application_id), locale, found.communityOf(locale)),
				localizedPath('/apply', locale)
			);
			return { id: Number(h.id), title, body, markup };
		})
	);
	await tx.execute(sql`update ${notifications} n set title = r.title, body = r.body, markup = r.markup
		from jsonb_to_recordset(${rows}::jsonb) as r(id bigint, title text, body text, markup jsonb)
		where n.id = r.id`);
	return held.length;
}
