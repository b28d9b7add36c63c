import { sql } from 'drizzle-orm';
import {
	bigint,
	boolean,
	check,
	customType,
	doublePrecision,
	index,
	integer,
	jsonb,
	numeric,
	pgEnum,
	pgTable,
	pgView,
	primaryKey,
	smallint,
	text,
	timestamp,
	unique,
	uniqueIndex,
	uuid
} from 'drizzle-orm/pg-core';
// Relative, not $lib: drizzle-kit reads this file outside SvelteKit.
import { STATES, FIELDS } from '../../applications/transitions';
import { LENGTHS as L } from '../../platform/limits';
import type { Answers, Question } from '../../forms/questions';
import type { VoteChoice } from '../../reviews/rubric';
import type { EligibilityEvidence } from '../../eligibility/rules';
import type { Markup } from '../../notifications/markup';
import {
	PROGRAM_LENGTHS as PL,
	PROGRAM_SLUG_SQL,
	RELEASE_MODES,
	type ProgramTranslations,
	type ReleaseMode
} from '../../programs/programs';

// A length as SQL text inside a CHECK (a literal, as the migrations wrote it, never a parameter).
const n = (value: number) => sql.raw(String(value));

// The database enums are the transitions table's own state lists (a change needs a migration).
export const reviewState = pgEnum('review_state', STATES.review);
export const allowlistState = pgEnum('allowlist_state', STATES.allowlist);
export const distributionState = pgEnum('distribution_state', STATES.distribution);
export const applicationField = pgEnum('application_field', FIELDS);

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const members = pgTable(
	'members',
	{
		address: text('address').primaryKey(),
		createdAt: createdAt(),
		lastSignedInAt: timestamp('last_signed_in_at', { withTimezone: true }).notNull().defaultNow(),
		/** The locale of the member's last signed-in page visit: their notifications and e-mails speak it. */
		locale: text('locale').notNull().default('en')
	},
	(t) => [
		check('members_address_lowercase', sql`${t.address} ~ '^0x[0-9a-f]{40}$'`),
		check('members_locale_known', sql`${t.locale} IN ('en', 'es', 'pt-BR', 'zh-Hans', 'ar')`)
	]
);

/**
 * Programmes (issue 57): a community admits in programmes, each with its own form and rounds. The
 * migration (drizzle/0023) made what existed programme `membership`.
 */
export const programs = pgTable(
	'programs',
	{
		id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
		slug: text('slug').notNull().unique(),
		name: text('name').notNull(),
		description: text('description').notNull().default(''),
		/** `{ "<locale>": { "name", "description" } }` */
		translations: jsonb('translations').$type<ProgramTranslations>().notNull().default({}),
		createdAt: createdAt(),
		archivedAt: timestamp('archived_at', { withTimezone: true }),
		/** Reviewers assigned to each new application of this programme; null: review_settings' (every programme's default). */
		perApplication: smallint('per_application')
	},
	(t) => [
		check('programs_per_application_range', sql`${t.perApplication} between 0 and 10`),
		check('programs_slug_format', sql`${t.slug} ~ ${sql.raw(`'${PROGRAM_SLUG_SQL}'`)}`),
		check('programs_name_length', sql`char_length(${t.name}) between ${n(PL.name.min)} and ${n(PL.name.max)}`),
		check('programs_description_length', sql`char_length(${t.description}) <= ${n(PL.description.max)}`),
		check('programs_translations_object', sql`jsonb_typeof(${t.translations}) = 'object'`)
	]
);

/**
 * A programme's rounds: it is open while one has `opens_at <= now < closes_at` (or no closes_at). Rounds
 * of one programme never overlap (checked by the portal, which names the other round).
 */
export const rounds = pgTable(
	'rounds',
	{
		id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
		programId: integer('program_id')
			.notNull()
			.references(() => programs.id),
		name: text('name').notNull(),
		opensAt: timestamp('opens_at', { withTimezone: true }).notNull(),
		/** null: open-ended. */
		closesAt: timestamp('closes_at', { withTimezone: true }),
		releaseMode: text('release_mode').$type<ReleaseMode>().notNull().default('immediate'),
		releaseAt: timestamp('release_at', { withTimezone: true }),
		/** null until its decisions are released (release_mode together). */
		releasedAt: timestamp('released_at', { withTimezone: true }),
		/** Who released it: the admin's address, or null when its release_at came (the worker or the cron route). */
		releasedBy: text('released_by'),
		createdAt: createdAt()
	},
	(t) => [
		index('rounds_program_opens_idx').on(t.programId, t.opensAt),
		check('rounds_name_length', sql`char_length(${t.name}) between ${n(PL.roundName.min)} and ${n(PL.roundName.max)}`),
		check(
			'rounds_release_mode_known',
			sql`${t.releaseMode} in (${sql.raw(RELEASE_MODES.map((m) => `'${m}'`).join(', '))})`
		),
		check('rounds_closes_after_opens', sql`${t.closesAt} is null or ${t.closesAt} > ${t.opensAt}`)
	]
);

/**
 * Application form versions (docs/decisions): every save of /admin/form adds a row and never updates
 * one; the highest id is the current form, and an application keeps the id of the version it answered.
 */
export const applicationForms = pgTable('application_forms', {
	id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
	/** The programme this version belongs to; its current form is its row with the highest id. */
	// NOT NULL; an insert without it (SQL written by hand) gets it from a trigger (drizzle/0023), hence `default null`.
	programId: integer('program_id')
		.notNull()
		.default(sql`null`)
		.references(() => programs.id),
	createdAt: createdAt(),
	createdBy: text('created_by').notNull(),
	questions: jsonb('questions').$type<Question[]>().notNull().default([]),
	/** Reviewer rubric criteria (#27): `[]` until reviewers come. */
	rubric: jsonb('rubric').$type<unknown[]>().notNull().default([]),
	/** Eligibility rules (#28): null when anyone may apply. */
	eligibility: jsonb('eligibility').$type<unknown>()
});

export const applications = pgTable(
	'applications',
	{
		id: uuid('id').primaryKey().defaultRandom(),
		applicantAddress: text('applicant_address')
			.notNull()
			.references(() => members.address),
		displayName: text('display_name').notNull(),
		motivation: text('motivation').notNull(),
		contact: text('contact').notNull().default(''),
		/** The programme applied to, and the round open when it was submitted (a row without them gets them by trigger, drizzle/0023). */
		programId: integer('program_id')
			.notNull()
			.default(sql`null`)
			.references(() => programs.id),
		roundId: integer('round_id')
			.notNull()
			.default(sql`null`)
			.references(() => rounds.id),
		/** The form version answered; null for the built-in fields only. */
		formId: integer('form_id').references(() => applicationForms.id),
		/** Keyed by question key (an unanswered optional question is absent). */
		answers: jsonb('answers').$type<Answers>().notNull().default({}),
		/** What the address held at submission, checked against its form's rules (#28); null without rules. */
		eligibility: jsonb('eligibility').$type<EligibilityEvidence>(),
		review: reviewState('review').notNull().default('pending'),
		allowlist: allowlistState('allowlist').notNull().default('pending'),
		distribution: distributionState('distribution').notNull().default('pending'),
		createdAt: createdAt(),
		updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
		/** Set by a rejection with `reapplyAfter`: no new application by this member before it (start of that day, UTC). */
		reapplyAfter: timestamp('reapply_after', { withTimezone: true }),
		// The tally of the current votes (#27), kept by triggers on application_votes (drizzle/0011,
		// docs/decisions/0033-vote-tally.md); never written by the portal's code.
		votesApprove: integer('votes_approve').notNull().default(0),
		votesReject: integer('votes_reject').notNull().default(0),
		votesAbstain: integer('votes_abstain').notNull().default(0),
		/** Reviewers with a current vote (the three counts' sum): votes=ready|needed and its tab counts. */
		votesCurrent: integer('votes_current').notNull().default(0),
		/** Current non-abstaining votes that carry a score. */
		votesScored: integer('votes_scored').notNull().default(0),
		/** The mean of those votes' own mean scores; null without any. */
		votesMeanScore: numeric('votes_mean_score'),
		// What applications.csv writes per row, kept by triggers on the audit log and the notes
		// (drizzle/0020, docs/decisions/0044-export-facts-on-the-row.md); never written by the portal's code.
		/** The tx hash of the newest audit row that has one; null without any. */
		lastTxHash: text('last_tx_hash'),
		/** The reviewer notes on this application (never shown to its applicant). */
		notesCount: integer('notes_count').notNull().default(0)
	},
	(t) => [
		// One application per programme and member whose review is neither rejected nor withdrawn (drizzle/0026:
		// named by the live states, since a migration may not use an enum value it adds in its own transaction).
		uniqueIndex('applications_one_live_per_program')
			.on(t.programId, t.applicantAddress)
			.where(sql`${t.review} in ('pending', 'needs_info', 'approved')`),
		index('applications_round_idx').on(t.roundId),
		// The review table walks these in either direction (keyset pagination over created_at, id).
		index('applications_queue_idx').on(t.createdAt, t.id),
		index('applications_review_queue_idx').on(t.review, t.createdAt, t.id),
		index('applications_allowlist_queue_idx').on(t.allowlist, t.createdAt, t.id),
		index('applications_distribution_queue_idx').on(t.distribution, t.createdAt, t.id),
		// sort=score (#27): highest mean score first (none counts as 0), then longest waiting.
		index('applications_score_queue_idx').on(sql`(- coalesce(${t.votesMeanScore}, 0))`, t.createdAt, t.id),
		index('applications_review_score_queue_idx').on(
			t.review,
			sql`(- coalesce(${t.votesMeanScore}, 0))`,
			t.createdAt,
			t.id
		),
		// votes=ready|needed (#27): the capped count of each review tab is a short index-only range.
		index('applications_votes_idx').on(t.votesCurrent),
		index('applications_review_votes_idx').on(t.review, t.votesCurrent),
		// Its search: pg_trgm serves `ilike '%…%'` on each column (migration 0002 creates the extension).
		index('applications_address_trgm_idx').using('gin', t.applicantAddress.op('gin_trgm_ops')),
		index('applications_display_name_trgm_idx').using('gin', t.displayName.op('gin_trgm_ops')),
		index('applications_contact_trgm_idx').using('gin', t.contact.op('gin_trgm_ops')),
		// Text answers: answers_search_text (drizzle/0006) joins their string values, immutably, for pg_trgm.
		index('applications_answers_trgm_idx').using('gin', sql`answers_search_text(${t.answers}) gin_trgm_ops`),
		index('applications_applicant_idx').on(t.applicantAddress),
		check(
			'applications_display_name_length',
			sql`char_length(${t.displayName}) between ${n(L.displayName.min)} and ${n(L.displayName.max)}`
		),
		check(
			'applications_motivation_length',
			sql`char_length(${t.motivation}) between ${n(L.motivation.min)} and ${n(L.motivation.max)}`
		),
		check('applications_contact_length', sql`char_length(${t.contact}) <= ${n(L.contact.max)}`)
	]
);

export const checkIns = pgTable(
	'check_ins',
	{
		id: uuid('id').primaryKey().defaultRandom(),
		memberAddress: text('member_address')
			.notNull()
			.references(() => members.address),
		note: text('note').notNull().default(''),
		createdAt: createdAt()
	},
	(t) => [
		index('check_ins_member_created_idx').on(t.memberAddress, t.createdAt.desc()),
		// A day's check-ins (the insights rollup recounts a day from them when a check-in is changed).
		index('check_ins_created_member_idx').on(t.createdAt, t.memberAddress),
		check('check_ins_note_length', sql`char_length(${t.note}) <= ${n(L.checkinNote.max)}`)
	]
);

/** The audit log: written in the same transaction as the change it records, never updated. */
export const applicationEvents = pgTable(
	'application_events',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id),
		executorAddress: text('executor_address').notNull(),
		createdAt: createdAt(),
		field: applicationField('field').notNull(),
		fromState: text('from_state').notNull(),
		toState: text('to_state').notNull(),
		reason: text('reason'),
		txHash: text('tx_hash'),
		/** True when chain 137 confirmed the tx hash; null when not looked up or no answer came in time. */
		txVerified: boolean('tx_verified'),
		/** A needs_info move's comments on single answers: answer key → comment (1–500 characters); null when none. */
		asks: jsonb('asks').$type<Record<string, string>>()
	},
	(t) => [
		index('application_events_application_idx').on(t.applicationId, t.id),
		// Each application's first decision (the insights rollup recomputes it from them when an audit row changes).
		index('application_events_first_decision_idx')
			.on(t.applicationId, t.createdAt)
			.where(sql`${t.field} = 'review' and ${t.toState} <> 'pending'`),
		// Each application's last tx hash, as applications.csv reads it per row: an index-only scan, no
		// heap fetch of the audit rows (drizzle/0018).
		index('application_events_last_tx_idx')
			.on(t.applicationId, t.id, t.txHash)
			.where(sql`${t.txHash} is not null`),
		check('application_events_tx_hash_format', sql`${t.txHash} ~ '^0x[0-9a-f]{64}$'`),
		check('application_events_reason_length', sql`char_length(${t.reason}) <= ${n(L.reason.max)}`),
		check('application_events_asks_object', sql`jsonb_typeof(${t.asks}) = 'object'`)
	]
);

/** The submitted text as it stood before each resubmission replaced it; never updated. */
export const applicationRevisions = pgTable(
	'application_revisions',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id),
		displayName: text('display_name').notNull(),
		motivation: text('motivation').notNull(),
		contact: text('contact').notNull(),
		answers: jsonb('answers').$type<Answers>().notNull().default({}),
		/** The form version those answers answered (their questions' labels); null for the built-in fields. */
		formId: integer('form_id').references(() => applicationForms.id),
		/** When this text was submitted (the application's creation or an earlier resubmission). */
		submittedAt: timestamp('submitted_at', { withTimezone: true }).notNull(),
		/** When the resubmission replaced it. */
		replacedAt: timestamp('replaced_at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [index('application_revisions_application_idx').on(t.applicationId, t.id)]
);

/**
 * A member's draft of an application to one programme (issue 58): what they typed, saved as they type,
 * deleted by their submission. Never shown to anyone else, never exported, never in a webhook.
 */
export const applicationDrafts = pgTable(
	'application_drafts',
	{
		memberAddress: text('member_address')
			.notNull()
			.references(() => members.address),
		programId: integer('program_id')
			.notNull()
			.references(() => programs.id),
		/** The form's fields as posted (name → value or values); checked only for size (DRAFT_MAX_BYTES). */
		fields: jsonb('fields').$type<Record<string, string | string[]>>().notNull(),
		updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [
		primaryKey({ columns: [t.memberAddress, t.programId] }),
		check('application_drafts_fields_object', sql`jsonb_typeof(${t.fields}) = 'object'`)
	]
);

/**
 * The files of `file` answers (issue 58; src/lib/server/files/README.md): the bytes are stored by their
 * sha256 in FILES_DIR or S3, this row says whose they are; `answers.<key>` holds these ids. Removed with
 * their application (ON DELETE CASCADE; the bytes by removeUnreferenced).
 */
export const applicationFiles = pgTable(
	'application_files',
	{
		id: uuid('id').primaryKey().defaultRandom(),
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id, { onDelete: 'cascade' }),
		questionKey: text('question_key').notNull(),
		/** The original name, made safe (no path, no controls, at most 200 characters). */
		name: text('name').notNull(),
		contentType: text('content_type').notNull(),
		bytes: integer('bytes').notNull(),
		sha256: text('sha256').notNull(),
		createdAt: createdAt()
	},
	(t) => [
		index('application_files_application_idx').on(t.applicationId),
		index('application_files_sha256_idx').on(t.sha256)
	]
);

/** Reviewer notes: admins only, append-only (never updated or deleted), never shown to the applicant. */
export const applicationNotes = pgTable(
	'application_notes',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id),
		authorAddress: text('author_address').notNull(),
		body: text('body').notNull(),
		createdAt: createdAt()
	},
	(t) => [
		index('application_notes_application_idx').on(t.applicationId, t.id),
		check(
			'application_notes_body_length',
			sql`char_length(${t.body}) between ${n(L.reviewerNote.min)} and ${n(L.reviewerNote.max)}`
		)
	]
);

/**
 * Reviewer votes (docs/decisions/0028-reviewer-votes.md): never updated or deleted; a reviewer's newest
 * row (created_at, then id) is their current vote, and voting again adds a row.
 */
export const applicationVotes = pgTable(
	'application_votes',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id),
		reviewerAddress: text('reviewer_address').notNull(),
		vote: text('vote').$type<VoteChoice>().notNull(),
		/** Criterion key → 1–5 (`{}` for an abstention). */
		scores: jsonb('scores').$type<Record<string, number>>().notNull().default({}),
		comment: text('comment').notNull().default(''),
		/** Cast once its reviewer could read the others' votes (docs/decisions/0040-review-assignment.md). */
		afterSeeingOthers: boolean('after_seeing_others').notNull().default(false),
		/** What the reviewer suggests asking the applicant, by answer key; an admin may take it over. Null when none. */
		asks: jsonb('asks').$type<Record<string, string>>(),
		createdAt: createdAt()
	},
	(t) => [
		index('application_votes_current_idx').on(t.applicationId, t.reviewerAddress, t.createdAt.desc(), t.id.desc()),
		index('application_votes_reviewer_idx').on(t.reviewerAddress, t.createdAt.desc(), t.id.desc()),
		check('application_votes_vote_choice', sql`${t.vote} in ('approve', 'reject', 'abstain')`),
		check('application_votes_scores_object', sql`jsonb_typeof(${t.scores}) = 'object'`),
		check('application_votes_comment_length', sql`char_length(${t.comment}) <= ${n(L.voteComment.max)}`),
		check('application_votes_asks_object', sql`jsonb_typeof(${t.asks}) = 'object'`)
	]
);

/**
 * The team (issue 59): owners, admins and reviewers added in the portal (/admin/team), each of every
 * programme (`program_id` null) or of one. ADMIN_ADDRESSES (owners) and REVIEWER_ADDRESSES (reviewers of
 * every programme) have no row. One row per address, role and programme, null counting as one value.
 */
export const teamMembers = pgTable(
	'team_members',
	{
		id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
		address: text('address').notNull(),
		role: text('role').notNull(),
		programId: integer('program_id').references(() => programs.id),
		addedBy: text('added_by').notNull(),
		addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [
		unique('team_members_address_role_program').on(t.address, t.role, t.programId).nullsNotDistinct(),
		check('team_members_address_lowercase', sql`${t.address} ~ '^0x[0-9a-f]{40}$'`),
		check('team_members_role_choice', sql`${t.role} in ('owner', 'admin', 'reviewer')`)
	]
);

/** Every change of the team: who (`actor`) added or removed (`action`) whom, in which role and programme, when. */
export const teamEvents = pgTable(
	'team_events',
	{
		id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
		actor: text('actor').notNull(),
		action: text('action').notNull(),
		address: text('address').notNull(),
		role: text('role').notNull(),
		programId: integer('program_id').references(() => programs.id),
		createdAt: createdAt()
	},
	(t) => [
		index('team_events_created_idx').on(t.createdAt.desc(), t.id.desc()),
		check('team_events_action_choice', sql`${t.action} in ('add', 'remove')`),
		check('team_events_role_choice', sql`${t.role} in ('owner', 'admin', 'reviewer')`)
	]
);

/**
 * The names the team's members gave themselves (issue 59), one per address whatever its roles (an owner from
 * ADMIN_ADDRESSES has no team row and may still have a name). Shown beside the address in votes,
 * assignments, history, insights and /admin/team; no row: no name.
 */
export const teamNames = pgTable(
	'team_names',
	{
		address: text('address').primaryKey(),
		displayName: text('display_name').notNull(),
		updatedBy: text('updated_by').notNull(),
		updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [
		check('team_names_address_lowercase', sql`${t.address} ~ '^0x[0-9a-f]{40}$'`),
		check('team_names_display_name_length', sql`char_length(${t.displayName}) between 1 and 80`)
	]
);

/** Bytes as Postgres `bytea` (the community's logo, at most 512 KiB). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/** A community text in other locales than the base one: locale → its words (blank: the base words). */
export type CommunityTranslations = Record<string, { name?: string; description?: string }>;

/**
 * The community's look as the portal edits it (issue 59, `/admin/settings`; docs/data.md): one row, made
 * by the first save. A null column keeps the environment's value (PUBLIC_COMMUNITY_*, PUBLIC_ACCENT_COLOR).
 */
export const communitySettings = pgTable(
	'community_settings',
	{
		id: smallint('id').primaryKey().default(1),
		name: text('name'),
		description: text('description'),
		links: jsonb('links').$type<{ label: string; href: string }[]>(),
		accent: text('accent'),
		translations: jsonb('translations').$type<CommunityTranslations>().notNull().default({}),
		logo: bytea('logo'),
		logoType: text('logo_type'),
		logoSha256: text('logo_sha256'),
		updatedBy: text('updated_by').notNull(),
		updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [
		check('community_settings_one_row', sql`${t.id} = 1`),
		check('community_settings_accent', sql`${t.accent} ~ '^#[0-9a-f]{6}$'`),
		check('community_settings_name_length', sql`char_length(${t.name}) between 1 and 60`),
		check('community_settings_description_length', sql`char_length(${t.description}) between 1 and 300`),
		check(
			'community_settings_logo_whole',
			sql`(${t.logo} is null) = (${t.logoType} is null) and (${t.logo} is null) = (${t.logoSha256} is null)`
		),
		check('community_settings_logo_size', sql`octet_length(${t.logo}) <= 524288`)
	]
);

/** Each save of the community's look: who, when, which fields changed (never the logo's bytes). */
export const communitySettingsEvents = pgTable(
	'community_settings_events',
	{
		id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
		actor: text('actor').notNull(),
		changed: text('changed').array().notNull(),
		at: timestamp('at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [index('community_settings_events_at').on(t.at)]
);

/**
 * The reviewers of every programme added in the portal, as decision 0040's table read them: since issue 59
 * a view over `team_members` (drizzle/0029_team.sql), whose INSERT and DELETE write the team.
 */
export const reviewers = pgView('reviewers', {
	address: text('address').notNull(),
	addedBy: text('added_by').notNull(),
	addedAt: timestamp('added_at', { withTimezone: true }).notNull()
}).existing();

/** One row (id = 1): how many reviewers each application is assigned (0: everyone sees everything). */
export const reviewSettings = pgTable(
	'review_settings',
	{
		id: smallint('id').primaryKey().default(1),
		perApplication: smallint('per_application').notNull().default(0),
		updatedBy: text('updated_by'),
		updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()
	},
	(t) => [
		check('review_settings_one_row', sql`${t.id} = 1`),
		check('review_settings_per_application_range', sql`${t.perApplication} between 0 and 10`)
	]
);

/**
 * Each reviewer's open assignments (on a pending application, without their vote), kept by triggers on
 * review_assignments, application_votes and applications (drizzle/0016, decision 0042): the
 * least-loaded choice reads 50 rows instead of counting every pending application's assignments.
 * Never written by the portal's code.
 */
export const reviewerOpenAssignments = pgTable('reviewer_open_assignments', {
	reviewerAddress: text('reviewer_address').primaryKey(),
	open: integer('open').notNull().default(0)
});

/** Who is asked to review which application (docs/decisions/0040-review-assignment.md). */
export const reviewAssignments = pgTable(
	'review_assignments',
	{
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id),
		reviewerAddress: text('reviewer_address').notNull(),
		assignedAt: timestamp('assigned_at', { withTimezone: true }).notNull().defaultNow(),
		/** `auto`, or the admin's address. */
		assignedBy: text('assigned_by').notNull()
	},
	(t) => [
		primaryKey({ columns: [t.applicationId, t.reviewerAddress] }),
		index('review_assignments_reviewer_idx').on(t.reviewerAddress, t.assignedAt)
	]
);

/** A reviewer's declared conflict of interest: no vote, no view of the others' votes, no assignment. */
export const reviewConflicts = pgTable(
	'review_conflicts',
	{
		applicationId: uuid('application_id')
			.notNull()
			.references(() => applications.id),
		reviewerAddress: text('reviewer_address').notNull(),
		reason: text('reason').notNull(),
		createdAt: createdAt()
	},
	(t) => [
		primaryKey({ columns: [t.applicationId, t.reviewerAddress] }),
		check('review_conflicts_reason_length', sql`char_length(${t.reason}) between 1 and 500`)
	]
);

/** Per-subject, per-action counters; only consume_rate_limit() writes them. */
export const rateLimitCounters = pgTable(
	'rate_limit_counters',
	{
		subject: text('subject').notNull(),
		action: text('action').notNull(),
		windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
		windowEndsAt: timestamp('window_ends_at', { withTimezone: true }).notNull(),
		count: integer('count').notNull()
	},
	(t) => [
		primaryKey({ columns: [t.subject, t.action] }),
		index('rate_limit_counters_window_ends_idx').on(t.windowEndsAt)
	]
);

/**
 * The insights rollup (drizzle/0010, docs/decisions/0032-insights-rollup.md): kept by statement-level
 * triggers on applications, application_events and check_ins in the writing statement itself; only
 * the charts read them, and nothing in the portal writes them.
 */
export const insightsApplications = pgTable(
	'insights_applications',
	{
		/** The UTC week (from Monday) of submission. */
		week: timestamp('week', { withTimezone: true }).notNull(),
		/**
		 * One of 16 by applicant (`insights_shard`, drizzle/0034): applications submitted at the same time
		 * count in different rows, so they do not wait on one another's row lock until commit. Readers sum.
		 */
		shard: smallint('shard').notNull(),
		review: reviewState('review').notNull(),
		allowlist: allowlistState('allowlist').notNull(),
		distribution: distributionState('distribution').notNull(),
		applications: integer('applications').notNull()
	},
	(t) => [primaryKey({ columns: [t.week, t.shard, t.review, t.allowlist, t.distribution] })]
);

/** Each decided application's first decision, by UTC week of submission. */
export const insightsFirstDecisions = pgTable(
	'insights_first_decisions',
	{
		applicationId: uuid('application_id').primaryKey(),
		week: timestamp('week', { withTimezone: true }).notNull(),
		decidedAt: timestamp('decided_at', { withTimezone: true }).notNull(),
		/** From submission to the first decision. */
		seconds: doublePrecision('seconds').notNull()
	},
	// One wait bucket's values in order (drizzle/0012): the percentiles read a rank as an offset into it.
	(t) => [index('insights_first_decisions_bucket_idx').on(t.week, sql`insights_wait_bucket(${t.seconds})`, t.seconds)]
);

/**
 * First decisions per UTC week of submission and wait bucket (`insights_wait_bucket`: 4 per doubling of
 * the seconds), kept by triggers on insights_first_decisions (drizzle/0012,
 * docs/decisions/0034-insights-wait-ranks.md): the percentiles find each rank's bucket here.
 */
export const insightsWaitBuckets = pgTable(
	'insights_wait_buckets',
	{
		week: timestamp('week', { withTimezone: true }).notNull(),
		bucket: smallint('bucket').notNull(),
		decided: integer('decided').notNull(),
		/** The bucket's smallest and largest wait: a rank at either end, or in equal values, reads no row. */
		minSeconds: doublePrecision('min_seconds'),
		maxSeconds: doublePrecision('max_seconds')
	},
	(t) => [primaryKey({ columns: [t.week, t.bucket] })]
);

/**
 * Current votes (each reviewer's newest per application) per reviewer and choice, kept by statement
 * triggers on application_votes (drizzle/0017): the votes chart reads a row per reviewer and choice
 * instead of every vote.
 */
export const insightsReviewerVotes = pgTable(
	'insights_reviewer_votes',
	{
		reviewerAddress: text('reviewer_address').notNull(),
		vote: text('vote').$type<VoteChoice>().notNull(),
		votes: integer('votes').notNull()
	},
	(t) => [primaryKey({ columns: [t.reviewerAddress, t.vote] })]
);

/** Check-ins and distinct members per UTC day, in 16 shards by member (`insights_shard`). */
export const insightsCheckInDays = pgTable(
	'insights_check_in_days',
	{
		day: timestamp('day', { withTimezone: true }).notNull(),
		shard: smallint('shard').notNull(),
		checkIns: integer('check_ins').notNull(),
		members: integer('members').notNull()
	},
	(t) => [primaryKey({ columns: [t.day, t.shard] })]
);

export const webhookStatus = pgEnum('webhook_status', ['pending', 'delivered', 'failed']);

/**
 * The webhook outbox (docs/webhooks.md): one row per event and URL, written in the transaction of the
 * change it reports; the delivery worker claims due rows and records each attempt.
 */
export const webhookDeliveries = pgTable(
	'webhook_deliveries',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		/** The webhook-id header: the same for every attempt and every URL of one event. */
		eventId: uuid('event_id').notNull(),
		eventType: text('event_type').notNull(),
		data: jsonb('data').$type<Record<string, unknown>>().notNull(),
		occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
		/**
		 * A webhook row's SHA-256 of the URL, matched against WEBHOOK_URLS: the URL (a token, for Discord) is
		 * never stored. Null for push and e-mail rows, whose receiver is read at sending time (drizzle/0022).
		 */
		urlHash: text('url_hash'),
		/** A webhook row's URL host, shown on /admin/webhooks; null for push and e-mail rows. */
		urlHost: text('url_host'),
		status: webhookStatus('status').notNull().default('pending'),
		attempts: integer('attempts').notNull().default(0),
		lastStatus: integer('last_status'),
		lastError: text('last_error'),
		lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
		nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
		/** While an attempt runs: the end of its lease (no other claim before then). */
		leasedUntil: timestamp('leased_until', { withTimezone: true }),
		/** Set by an admin's retry: give up after one more failed attempt instead of 24 hours after the event. */
		retryUntil: timestamp('retry_until', { withTimezone: true }),
		deliveredAt: timestamp('delivered_at', { withTimezone: true }),
		/**
		 * When the row was set aside: failed because its sender threw the same way SET_ASIDE_AFTER times
		 * (outbox/store.ts), listed apart on /admin/webhooks; cleared by an admin's retry.
		 */
		setAsideAt: timestamp('set_aside_at', { withTimezone: true }),
		/** Every attempt: { attempt, at, status, error }. */
		attemptLog: jsonb('attempt_log').$type<WebhookAttempt[]>().notNull().default([]),
		/** Who the row goes to (docs/notifications.md): a webhook URL, or an applicant's push subscription or mail. */
		channel: text('channel').$type<DeliveryChannel>().notNull().default('webhook'),
		/**
		 * A decision staged in a round released together (docs/application-form.md "Programmes and rounds"):
		 * the round it waits for; no claim takes the row until the release clears it (programs/release.ts).
		 */
		heldRoundId: integer('held_round_id').references(() => rounds.id)
	},
	// Due rows by time (the claim); the lease (leased_until) is a column of its own that no index names,
	// so a claim changes no indexed column and Postgres can update the row in place (a HOT update,
	// room left by the table's fillfactor, drizzle/0005).
	(t) => [
		index('webhook_deliveries_due_idx')
			.on(t.nextAttemptAt)
			.where(sql`${t.status} = 'pending'`),
		// The /metrics outbox gauges (oldest waiting, failed count).
		index('webhook_deliveries_pending_age_idx')
			.on(t.occurredAt)
			.where(sql`${t.status} = 'pending'`),
		index('webhook_deliveries_failed_idx')
			.on(t.id)
			.where(sql`${t.status} = 'failed'`),
		// A round's held rows, found by its release.
		index('webhook_deliveries_held_idx')
			.on(t.heldRoundId)
			.where(sql`${t.heldRoundId} is not null`),
		// A webhook row names its URL; a push or e-mail row names none (no sentinel in its place).
		check(
			'webhook_deliveries_url_of_webhooks',
			sql`(${t.channel} = 'webhook') = (${t.urlHash} is not null and ${t.urlHost} is not null)`
		)
	]
);

export const DELIVERY_CHANNELS = ['webhook', 'push', 'email'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export const NOTIFICATION_KINDS = [
	'application.submitted',
	'application.resubmitted',
	'application.transitioned',
	'admin.message'
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * What an applicant is told (docs/notifications.md): one row per change of their application, written in
 * the change's transaction; the inbox reads them, push and mail deliveries point at them.
 */
export const notifications = pgTable(
	'notifications',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		recipientAddress: text('recipient_address').notNull(),
		applicationId: uuid('application_id').references(() => applications.id, { onDelete: 'cascade' }),
		kind: text('kind').$type<NotificationKind>().notNull(),
		title: text('title').notNull(),
		body: text('body').notNull(),
		createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
		readAt: timestamp('read_at', { withTimezone: true }),
		/** A staged decision's notification: out of the inbox until its round is released (as webhook_deliveries.held_round_id). */
		heldRoundId: integer('held_round_id').references(() => rounds.id),
		/**
		 * The body as a community's template or an admin's message wrote it (issue 59): paragraphs, links, bold and
		 * lists as a safe structure (notifications/template.ts), never HTML; null: the body is plain text.
		 */
		markup: jsonb('markup').$type<Markup>(),
		/** An admin's message to applicants (`kind` `admin.message`): the message it is one copy of. */
		messageId: bigint('message_id', { mode: 'number' }).references(() => applicantMessages.id)
	},
	(t) => [
		check(
			'notifications_kind_check',
			sql`${t.kind} in ('application.submitted', 'application.resubmitted', 'application.transitioned', 'admin.message')`
		),
		check('notifications_recipient_lowercase', sql`${t.recipientAddress} = lower(${t.recipientAddress})`),
		// The inbox (newest first) and the header's unread count.
		index('notifications_recipient_idx').on(t.recipientAddress, t.id),
		// An application's messages from the admins, in its history.
		index('notifications_application_message_idx')
			.on(t.applicationId, t.id)
			.where(sql`${t.messageId} is not null`),
		index('notifications_held_idx')
			.on(t.heldRoundId)
			.where(sql`${t.heldRoundId} is not null`),
		index('notifications_unread_idx')
			.on(t.recipientAddress)
			.where(sql`${t.readAt} is null`)
	]
);

/** The events whose message a community may write in its own words (docs/notifications.md, DECISIONS 2026-12-02). */
export const MESSAGE_EVENTS = [
	'application.submitted',
	'application.resubmitted',
	'review.needs_info',
	'review.approved',
	'review.rejected',
	'application.withdrawn',
	'allowlist.added',
	'distribution.sent',
	'decisions.released'
] as const;
export type MessageEvent = (typeof MESSAGE_EVENTS)[number];

/**
 * The community's own words for an event's message in one locale (issue 59): the subject and the body
 * (paragraphs, links, bold and lists, with placeholders); without a row, the portal's default text.
 * `updated_at` is what a save names to be told of a later one (409).
 */
export const messageTemplates = pgTable(
	'message_templates',
	{
		event: text('event').$type<MessageEvent>().notNull(),
		locale: text('locale').notNull(),
		subject: text('subject').notNull(),
		body: text('body').notNull(),
		updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
		/** Who saved it; null for a row written outside the portal. */
		updatedBy: text('updated_by')
	},
	(t) => [
		primaryKey({ columns: [t.event, t.locale] }),
		check(
			'message_templates_event_known',
			sql`${t.event} in (${sql.raw(MESSAGE_EVENTS.map((e) => `'${e}'`).join(', '))})`
		),
		check('message_templates_locale_known', sql`${t.locale} IN ('en', 'es', 'pt-BR', 'zh-Hans', 'ar')`),
		check('message_templates_subject_length', sql`char_length(${t.subject}) between 1 and 200`),
		check('message_templates_body_length', sql`char_length(${t.body}) between 1 and 5000`)
	]
);

/** An admin's message to a selection of applicants (issue 59): one notification per application points at it. */
export const applicantMessages = pgTable(
	'applicant_messages',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		subject: text('subject').notNull(),
		body: text('body').notNull(),
		sentBy: text('sent_by').notNull(),
		createdAt: createdAt(),
		recipients: integer('recipients').notNull().default(0),
		// The one-time key the confirm step handed out (drizzle/0031): a second post of it sends nothing.
		sendKey: uuid('send_key')
	},
	(t) => [
		uniqueIndex('applicant_messages_send_key_idx').on(t.sentBy, t.sendKey),
		check('applicant_messages_subject_length', sql`char_length(${t.subject}) between 1 and 200`),
		check('applicant_messages_body_length', sql`char_length(${t.body}) between 1 and 5000`)
	]
);

/** A browser's Web Push subscription (RFC 8030): where the push service takes messages for it. */
export const pushSubscriptions = pgTable(
	'push_subscriptions',
	{
		id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
		memberAddress: text('member_address').notNull(),
		endpoint: text('endpoint').notNull().unique(),
		p256dh: text('p256dh').notNull(),
		auth: text('auth').notNull(),
		createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
		lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
		failures: integer('failures').notNull().default(0)
	},
	(t) => [index('push_subscriptions_member_idx').on(t.memberAddress)]
);

/** A member's own e-mail address for notifications: private to them, used only once verified. */
export const memberEmails = pgTable('member_emails', {
	address: text('address').primaryKey(),
	email: text('email').notNull(),
	verifiedAt: timestamp('verified_at', { withTimezone: true }),
	createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow()
});

export interface WebhookAttempt {
	attempt: number;
	at: string;
	status: number | null;
	error: string | null;
}

export type ApplicationForm = typeof applicationForms.$inferSelect;
export type Program = typeof programs.$inferSelect;
export type Round = typeof rounds.$inferSelect;
export type Member = typeof members.$inferSelect;
export type Application = typeof applications.$inferSelect;
export type CheckIn = typeof checkIns.$inferSelect;
export type ApplicationEvent = typeof applicationEvents.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type Notification = typeof notifications.$inferSelect;
export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;
export type ApplicationRevision = typeof applicationRevisions.$inferSelect;
export type ApplicationDraft = typeof applicationDrafts.$inferSelect;
export type ApplicationNote = typeof applicationNotes.$inferSelect;
export type ApplicationVote = typeof applicationVotes.$inferSelect;
export type ReviewConflict = typeof reviewConflicts.$inferSelect;
export type ReviewAssignment = typeof reviewAssignments.$inferSelect;
