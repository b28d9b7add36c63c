import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { LENGTHS } from '$lib/platform/limits';
import { SCORE_MAX, SCORE_MIN, VOTE_CHOICES, rubricOf, type Criterion, type VoteChoice } from '$lib/reviews/rubric';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';
import { applicationVotes, applications, type ApplicationVote } from '../db/schema';
import { askField, type Asks } from '$lib/applications/asks';
import { parseAsks, unknownAsks } from './asks-input';
import type { SignedInMember } from '../auth/guards';
import { currentFormFor, formVersions } from '../forms/versions';
import { formInput, textField, validate, type FormFields } from '../platform/forms';
import { consume } from '../platform/rate-limit';
import {
	conflict,
	forbidden,
	invalid,
	notFound,
	rateLimited,
	type FieldErrors,
	type Outcome
} from '../platform/outcome';
import { eventTargets } from '../webhooks/events';
import type { OutboxTargets } from '../platform/outbox-targets';
import * as v from 'valibot';
import { m } from '$lib/paraglide/messages';

/** The vote form's own fields; each rubric criterion adds `score.<key>`. */
export const VOTE_FIELDS = ['vote', 'comment'] as const;
export const scoreField = (key: string) => `score.${key}`;

/** A vote form's input: its two fields and every `score.<key>` it sent (the rubric decides which count), in one pass. */
export const voteInput = (form: FormFields): Record<string, unknown> => ({
	...form.prefixed('score.'),
	...formInput(form, VOTE_FIELDS)
});

export interface VoteInput {
	vote: VoteChoice;
	comment: string;
	scores: Record<string, number>;
	/** What the reviewer suggests asking the applicant, by answer key (an admin may take it over); null when none. */
	asks: Asks | null;
}

// Built per vote: its label is in the request's locale (docs/translations.md, server-side messages).
const commentField = () => textField(m.review_comment_label(), { ...LENGTHS.voteComment, multiline: true });
const SCORE = new RegExp(`^[${SCORE_MIN}-${SCORE_MAX}]$`);

/**
 * The vote's fields checked against the rubric: `vote` one of approve, reject, abstain; `comment` up to
 * 2000 characters, required with reject; `score.<key>` a whole number 1–5 for every criterion (each may
 * be left out when abstaining). Fields of keys the rubric does not have are ignored.
 */
export function parseVote(input: Record<string, unknown>, rubric: readonly Criterion[]): Outcome<VoteInput> {
	const errors: FieldErrors = {};
	const vote = input.vote;
	const choice =
		typeof vote === 'string' && (VOTE_CHOICES as readonly string[]).includes(vote) ? (vote as VoteChoice) : null;
	if (!choice) errors.vote = m.review_error_choose_vote();
	const comment = validate(v.object({ comment: commentField() }), { comment: input.comment });
	if (!comment.ok) Object.assign(errors, comment.errors);
	else if (choice === 'reject' && comment.value.comment === '') errors.comment = m.review_error_reject_reason();
	const scores: Record<string, number> = {};
	for (const criterion of rubric) {
		const name = scoreField(criterion.key);
		const raw = input[name];
		if (raw === undefined || raw === '') {
			if (choice !== 'abstain')
				errors[name] = m.review_error_score_missing({ label: criterion.label, min: SCORE_MIN, max: SCORE_MAX });
		} else if (typeof raw !== 'string' || !SCORE.test(raw)) {
			errors[name] = m.review_error_score_whole({ min: SCORE_MIN, max: SCORE_MAX });
		} else scores[criterion.key] = Number(raw);
	}
	const sent = input.asks;
	const asks = parseAsks(sent && typeof sent === 'object' ? (sent as Record<string, unknown>) : {});
	Object.assign(errors, asks.errors);
	if (Object.keys(errors).length || !choice || !comment.ok) return invalid(errors);
	return { ok: true, value: { vote: choice, comment: comment.value.comment, scores, asks: asks.asks } };
}

export interface CastVote {
	id: string;
	vote: VoteChoice;
	createdAt: string;
}

/**
 * castVote: guard (the route's) → the per-address limit `vote` → the fields against the current rubric →
 * one statement that locks the application row, refuses a decided application (409) or the reviewer's
 * own or one they declared a conflict on (403), appends the vote (marked when cast after seeing the others') and writes the `application.voted` webhook with the counts after it. At
 * most three statements: the limit, the rubric (served from the form cache most of the time), the write.
 */
export async function castVote(
	db: Database,
	outbox: OutboxTargets,
	reviewer: SignedInMember,
	applicationId: string,
	input: Record<string, unknown>
): Promise<Outcome<CastVote>> {
	const limit = await consume(db, reviewer.address, 'vote');
	if (!limit.ok) return rateLimited(limit);
	// The rubric of the application's own programme (issue 57); an unknown application is refused below.
	const form = await currentFormFor(db, applicationId);
	if (!form) return notFound(m.review_error_no_application());
	const parsed = parseVote(input, rubricOf(form.rubric));
	if (!parsed.ok) return parsed;
	const { vote, comment, scores, asks } = parsed.value;
	// Suggestions name answers of the application's own form version (one read, only when there are some).
	if (asks) {
		const [app] = await db
			.select({ formId: applications.formId })
			.from(applications)
			.where(eq(applications.id, applicationId));
		if (!app) return notFound(m.review_error_no_application());
		const versions = await formVersions(db, [app.formId]);
		const [unknown] = unknownAsks(asks, app.formId === null ? [] : (versions.get(app.formId) ?? []));
		if (unknown !== undefined) return invalid({ [askField(unknown)]: m.review_error_unknown_ask({ key: unknown }) });
	}
	const targets = eventTargets(outbox);
	// The row lock (FOR NO KEY UPDATE, what a transition's UPDATE takes) orders this vote against a
	// decision and against other votes on the application: a decision committed first leaves no pending row.
	const webhookRows = targets.length
		? sql`, outbox as (
			insert into webhook_deliveries (event_id, event_type, data, url_hash, url_host)
			select t.event_id::uuid, 'application.voted', jsonb_build_object(
				'applicationId', cast_vote.application_id,
				'program', (select jsonb_build_object('slug', p.slug, 'name', p.name)
					from applications pa join programs p on p.id = pa.program_id where pa.id = cast_vote.application_id),
				'round', (select jsonb_build_object('id', r.id, 'name', r.name)
					from applications ra join rounds r on r.id = ra.round_id where ra.id = cast_vote.application_id),
				'reviewer', cast_vote.reviewer_address,
				'vote', cast_vote.vote,
				'scores', cast_vote.scores,
				'votedAt', to_char(cast_vote.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
				'counts', jsonb_build_object(
					'approve', (o.c ->> 'approve')::int + (cast_vote.vote = 'approve')::int,
					'reject', (o.c ->> 'reject')::int + (cast_vote.vote = 'reject')::int,
					'abstain', (o.c ->> 'abstain')::int + (cast_vote.vote = 'abstain')::int
				),
				'meanScore', case when s.mine is null
					then (o.c ->> 'scoreSum')::numeric / nullif((o.c ->> 'scored')::int, 0)
					else ((o.c ->> 'scoreSum')::numeric + s.mine) / ((o.c ->> 'scored')::int + 1) end
			), t.url_hash, t.url_host
			from cast_vote
			cross join lateral (select application_vote_counts_except(cast_vote.application_id, cast_vote.reviewer_address) as c) as o
			cross join lateral (select case when cast_vote.vote <> 'abstain' then vote_mean_score(cast_vote.scores) end as mine) as s
			cross join (values ${sql.join(
				targets.map((t) => sql`(${t.eventId}, ${t.urlHash}, ${t.urlHost})`),
				sql`, `
			)}) as t(event_id, url_hash, url_host)
		)`
		: sql``;
	const result = await db.execute(sql`
		with app as (
			select id, review, applicant_address,
				exists (select 1 from review_conflicts k where k.application_id = a.id and k.reviewer_address = ${reviewer.address}) as conflicted,
				-- Seen: the others' votes were open to this reviewer (decision 0040) and there were some.
				(${reviewer.isAdmin} or exists (select 1 from application_votes s where s.application_id = a.id
					and s.reviewer_address = ${reviewer.address} and s.vote <> 'abstain'))
				and exists (select 1 from application_votes o where o.application_id = a.id
					and o.reviewer_address <> ${reviewer.address}) as seen
			from applications as a where id = ${applicationId}::uuid for no key update
		), cast_vote as (
			insert into application_votes (application_id, reviewer_address, vote, scores, comment, after_seeing_others, asks)
			select app.id, ${reviewer.address}, ${vote}, ${JSON.stringify(scores)}::jsonb, ${comment}, app.seen, ${asks ? JSON.stringify(asks) : null}::jsonb
			from app where app.review = 'pending' and app.applicant_address <> ${reviewer.address} and not app.conflicted
			returning id, application_id, reviewer_address, vote, scores, created_at
		)${webhookRows}
		select app.review::text as review, app.applicant_address, app.conflicted, cast_vote.id::text as vote_id,
			to_char(cast_vote.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
		from app left join cast_vote on true`);
	const row = rowsOf<{
		review: string;
		applicant_address: string;
		conflicted: boolean;
		vote_id: string | null;
		created_at: string | null;
	}>(result)[0];
	if (!row) return notFound(m.review_error_no_application());
	if (row.vote_id && row.created_at) return { ok: true, value: { id: row.vote_id, vote, createdAt: row.created_at } };
	if (row.applicant_address === reviewer.address) return forbidden(m.review_own_application());
	if (row.conflicted) return forbidden(m.review_error_conflicted());
	return conflict(m.review_decided());
}

/** A vote as reviewers and admins read it. */
export type VoteRow = Pick<
	ApplicationVote,
	'id' | 'reviewerAddress' | 'vote' | 'scores' | 'comment' | 'afterSeeingOthers' | 'asks' | 'createdAt'
>;

const voteColumns = {
	id: applicationVotes.id,
	reviewerAddress: applicationVotes.reviewerAddress,
	vote: applicationVotes.vote,
	scores: applicationVotes.scores,
	comment: applicationVotes.comment,
	afterSeeingOthers: applicationVotes.afterSeeingOthers,
	asks: applicationVotes.asks,
	createdAt: applicationVotes.createdAt
};

/** Every reviewer's current vote on an application (their newest row), by reviewer. */
export async function currentVotes(db: Database, applicationId: string): Promise<VoteRow[]> {
	const rows = await db
		.selectDistinctOn([applicationVotes.reviewerAddress], voteColumns)
		.from(applicationVotes)
		.where(eq(applicationVotes.applicationId, applicationId))
		.orderBy(asc(applicationVotes.reviewerAddress), desc(applicationVotes.createdAt), desc(applicationVotes.id));
	return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
}

/** One reviewer's votes on an application, newest first: the first is their current vote, the rest what it replaced. */
export function votesBy(db: Database, applicationId: string, reviewer: string): Promise<VoteRow[]> {
	return db
		.select(voteColumns)
		.from(applicationVotes)
		.where(and(eq(applicationVotes.applicationId, applicationId), eq(applicationVotes.reviewerAddress, reviewer)))
		.orderBy(desc(applicationVotes.createdAt), desc(applicationVotes.id));
}
