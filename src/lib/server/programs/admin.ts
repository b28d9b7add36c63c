import { and, asc, count, eq, gt, isNull, lt, ne, notInArray, or, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { applications, programs, rounds, type Program } from '../db/schema';
import { conflict, invalid, type FieldErrors, type Outcome } from '../platform/outcome';
import { textField, validate } from '../platform/forms';
import { transactionOutcome } from '../platform/transaction';
import { parseTimeInput } from './time-input';
import { roundTimeText } from './community-zone';
import { unhold } from './release';
import {
	PROGRAM_LENGTHS as PL,
	PROGRAM_SLUG,
	RELEASE_MODES,
	type ProgramTranslations,
	type ReleaseMode
} from '$lib/programs/programs';
import { baseLocale, locales } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';

/**
 * /admin/programs (issue 57, docs/application-form.md "Programmes and rounds"): create, edit and archive
 * programmes, add and edit their rounds. Every refusal is a 400 naming the field (or a 409 for an
 * archive that live applications stop), decided before anything is written or inside the transaction
 * that would write it, so a refusal leaves nothing behind.
 */

/** The locales a programme's name and description may be translated into (the original is the base locale's). */
export const TRANSLATED_LOCALES = locales.filter((l) => l !== baseLocale);

export const PROGRAM_FIELDS = [
	'slug',
	'name',
	'description',
	...TRANSLATED_LOCALES.flatMap((l) => [`name.${l}`, `description.${l}`])
] as const;
export const ARCHIVE_FIELDS = ['slug'] as const;
export const ROUND_FIELDS = ['id', 'program', 'name', 'opensAt', 'closesAt', 'releaseMode', 'releaseAt'] as const;

const slugField = v.pipe(
	v.string(() => m.program_slug_format()),
	v.transform((s) => s.trim()),
	v.regex(PROGRAM_SLUG, () => m.program_slug_format())
);
const nameField = textField(m.program_field_name, PL.name);
const descriptionField = textField(m.program_field_description, { ...PL.description, multiline: true });
const translatedName = textField(m.program_field_name, { max: PL.name.max });

const ProgramSchema = v.object({
	slug: slugField,
	name: nameField,
	description: descriptionField,
	...Object.fromEntries(
		TRANSLATED_LOCALES.flatMap((l) => [
			[`name.${l}`, translatedName],
			[`description.${l}`, descriptionField]
		])
	)
});

/** A programme as /admin/programs lists it, with every round oldest first. */
export interface AdminProgram {
	id: number;
	slug: string;
	name: string;
	description: string;
	translations: ProgramTranslations;
	archivedAt: Date | null;
	liveApplications: number;
	rounds: AdminRound[];
}

export interface AdminRound {
	id: number;
	name: string;
	opensAt: Date;
	closesAt: Date | null;
	releaseMode: ReleaseMode;
	releaseAt: Date | null;
	releasedAt: Date | null;
	/** Where it stands at the time of reading. */
	state: 'open' | 'upcoming' | 'closed';
}

const stateAt = (r: { opensAt: Date; closesAt: Date | null }, now: Date): AdminRound['state'] =>
	r.opensAt > now ? 'upcoming' : r.closesAt === null || r.closesAt > now ? 'open' : 'closed';

/** Every programme (archived last) with its rounds and its count of live applications: three queries. */
export async function adminPrograms(db: Pick<Database, 'select'>, now = new Date()): Promise<AdminProgram[]> {
	const [rows, roundRows, live] = await Promise.all([
		db
			.select()
			.from(programs)
			.orderBy(sql`${programs.archivedAt} is not null`, asc(programs.id)),
		db.select().from(rounds).orderBy(asc(rounds.opensAt), asc(rounds.id)),
		db
			.select({ programId: applications.programId, n: count() })
			.from(applications)
			.where(notInArray(applications.review, ['rejected', 'withdrawn']))
			.groupBy(applications.programId)
	]);
	const liveOf = new Map(live.map((r) => [r.programId, r.n]));
	return rows.map((p: Program) => ({
		id: p.id,
		slug: p.slug,
		name: p.name,
		description: p.description,
		translations: p.translations,
		archivedAt: p.archivedAt,
		liveApplications: liveOf.get(p.id) ?? 0,
		rounds: roundRows
			.filter((r) => r.programId === p.id)
			.map((r) => ({
				id: r.id,
				name: r.name,
				opensAt: r.opensAt,
				closesAt: r.closesAt,
				releaseMode: r.releaseMode,
				releaseAt: r.releaseAt,
				releasedAt: r.releasedAt,
				state: stateAt(r, now)
			}))
	}));
}

/** The programme with this slug, or null. */
export async function programBySlug(db: Pick<Database, 'select'>, slug: string) {
	if (!PROGRAM_SLUG.test(slug)) return null;
	const [row] = await db.select().from(programs).where(eq(programs.slug, slug)).limit(1);
	return row ?? null;
}

/**
 * saveProgram: a new programme, or the programme with this slug edited (one statement: INSERT … ON
 * CONFLICT (slug) DO UPDATE, so two admins saving the same new slug make one programme). An archived
 * programme is not edited (409): its slug stays taken.
 */
export async function saveProgram(
	db: Database,
	input: Record<string, unknown>
): Promise<Outcome<{ slug: string; created: boolean }>> {
	const parsed = validate(ProgramSchema, input);
	if (!parsed.ok) return parsed;
	const value = parsed.value as Record<string, string>;
	const translations: ProgramTranslations = {};
	for (const l of TRANSLATED_LOCALES) {
		const name = value[`name.${l}`] ?? '';
		const description = value[`description.${l}`] ?? '';
		if (name || description) translations[l] = { ...(name ? { name } : {}), ...(description ? { description } : {}) };
	}
	const fields = { name: value.name!, description: value.description!, translations };
	const [row] = await db
		.insert(programs)
		.values({ slug: value.slug!, ...fields })
		.onConflictDoUpdate({ target: programs.slug, set: fields, where: isNull(programs.archivedAt) })
		.returning({ createdAt: programs.createdAt, fresh: sql<boolean>`xmax = 0` });
	// No row: the slug is an archived programme's (the conditional update touched nothing).
	if (!row) return conflict(m.program_archived_not_editable());
	return { ok: true, value: { slug: value.slug!, created: row.fresh } };
}

/**
 * archiveProgram: refused (409, with the count) while the programme has live applications (review not
 * rejected); counted inside the transaction that archives it, with the programme's row locked. An
 * archived programme stays archived (archiving it again changes nothing).
 */
export async function archiveProgram(db: Database, input: Record<string, unknown>): Promise<Outcome<{ slug: string }>> {
	const parsed = validate(v.object({ slug: slugField }), input);
	if (!parsed.ok) return parsed;
	const slug = parsed.value.slug;
	return transactionOutcome(db, async (tx) => {
		const [program] = await tx.select().from(programs).where(eq(programs.slug, slug)).for('update');
		if (!program) return invalid({ slug: m.round_program_unknown() });
		if (program.archivedAt) return { ok: true, value: { slug } };
		const [live] = await tx
			.select({ n: count() })
			.from(applications)
			.where(and(eq(applications.programId, program.id), notInArray(applications.review, ['rejected', 'withdrawn'])));
		if (live!.n > 0) return conflict(m.program_archive_live({ count: live!.n, name: program.name }));
		await tx
			.update(programs)
			.set({ archivedAt: sql`now()` })
			.where(eq(programs.id, program.id));
		return { ok: true, value: { slug } };
	});
}

const ID = /^[1-9]\d{0,9}$/;

/** A time field: ISO 8601 with an offset, or YYYY-MM-DDTHH:MM in COMMUNITY_TIME_ZONE. */
function timeOf(
	raw: unknown,
	label: string,
	errors: FieldErrors,
	field: string,
	optional: boolean,
	zone: string
): Date | null {
	if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) {
		if (!optional) errors[field] = m.round_time_required({ label });
		return null;
	}
	if (typeof raw !== 'string') {
		errors[field] = m.round_time_format({ label, zone });
		return null;
	}
	const parsed = parseTimeInput(raw, zone);
	if (parsed.ok) return parsed.at;
	errors[field] =
		parsed.reason === 'skipped'
			? m.round_time_skipped({ label, from: parsed.from, to: parsed.to, zone })
			: m.round_time_format({ label, zone });
	return null;
}

const roundName = textField(m.round_field_name, PL.roundName);

/**
 * saveRound: a new round of a programme, or its round `id` edited. The fields are checked first; then,
 * in one transaction with the programme's row locked (FOR UPDATE), the round to edit is found and no
 * other round of the programme may overlap it, so two admins at once cannot both add overlapping rounds.
 */
export async function saveRound(
	db: Database,
	input: Record<string, unknown>,
	/** COMMUNITY_TIME_ZONE: local times are read, and other rounds' times named, in it. */
	zone: string,
	/** The admin saving it: the releaser when a switch from `together` to `immediate` lets the held decisions go. */
	by: string
): Promise<Outcome<{ id: number; program: string; released: number }>> {
	const errors: FieldErrors = {};
	const slug = typeof input.program === 'string' ? input.program.trim() : '';
	if (!PROGRAM_SLUG.test(slug)) errors.program = m.round_program_unknown();
	let id: number | null = null;
	if (input.id !== undefined && !(typeof input.id === 'string' && input.id.trim() === '')) {
		if (typeof input.id === 'string' && ID.test(input.id.trim())) id = Number(input.id.trim());
		else errors.id = m.round_unknown();
	}
	const name = v.safeParse(roundName, input.name);
	if (!name.success) errors.name = name.issues[0].message;
	const opensAt = timeOf(input.opensAt, m.round_field_opens(), errors, 'opensAt', false, zone);
	const closesAt = timeOf(input.closesAt, m.round_field_closes(), errors, 'closesAt', true, zone);
	const releaseAt = timeOf(input.releaseAt, m.round_field_release_at(), errors, 'releaseAt', true, zone);
	const mode = input.releaseMode === undefined || input.releaseMode === '' ? 'immediate' : input.releaseMode;
	if (typeof mode !== 'string' || !(RELEASE_MODES as readonly string[]).includes(mode))
		errors.releaseMode = m.round_release_mode_unknown();
	if (opensAt && closesAt && closesAt <= opensAt && !errors.closesAt) errors.closesAt = m.round_closes_before_opens();
	if (releaseAt && mode === 'immediate' && !errors.releaseAt) errors.releaseAt = m.round_release_at_immediate();
	if (releaseAt && opensAt && releaseAt < opensAt && !errors.releaseAt)
		errors.releaseAt = m.round_release_before_open();
	if (Object.keys(errors).length || !opensAt || !name.success) return invalid(errors);
	const releaseMode = mode as ReleaseMode;
	return transactionOutcome(db, async (tx) => {
		const [program] = await tx
			.select({ id: programs.id, archivedAt: programs.archivedAt })
			.from(programs)
			.where(eq(programs.slug, slug))
			.for('update');
		if (!program || program.archivedAt) return invalid({ program: m.round_program_unknown() });
		// Whether the round holds decisions now (together, not released): a switch to immediate lets them go.
		let held = false;
		if (id !== null) {
			const [own] = await tx
				.select({ id: rounds.id, releaseMode: rounds.releaseMode, releasedAt: rounds.releasedAt })
				.from(rounds)
				.where(and(eq(rounds.id, id), eq(rounds.programId, program.id)))
				.for('update');
			if (!own) return invalid({ id: m.round_unknown() });
			held = own.releaseMode === 'together' && own.releasedAt === null;
		}
		// [opensAt, closesAt) against each other round's, a missing close being the end of time.
		const [other] = await tx
			.select({ name: rounds.name, opensAt: rounds.opensAt, closesAt: rounds.closesAt })
			.from(rounds)
			.where(
				and(
					eq(rounds.programId, program.id),
					id === null ? undefined : ne(rounds.id, id),
					closesAt ? lt(rounds.opensAt, closesAt) : undefined,
					or(isNull(rounds.closesAt), gt(rounds.closesAt, opensAt))
				)
			)
			.orderBy(asc(rounds.opensAt))
			.limit(1);
		if (other)
			return invalid({
				opensAt: m.round_overlaps({
					other: other.name,
					opens: roundTimeText(other.opensAt, zone),
					closes: other.closesAt ? roundTimeText(other.closesAt, zone) : m.round_no_close()
				})
			});
		const values = { name: name.output, opensAt, closesAt, releaseMode, releaseAt };
		if (id !== null) {
			// Switched from together to immediate before its release: released now, by this admin, and what it
			// held goes out once, in this transaction (else the held decisions would wait for a release nobody can
			// give: an immediate round has no Release button).
			const release = held && releaseMode === 'immediate';
			await tx
				.update(rounds)
				.set(release ? { ...values, releasedAt: sql`now()`, releasedBy: by.toLowerCase() } : values)
				.where(eq(rounds.id, id));
			const released = release ? await unhold(tx, id) : null;
			return { ok: true, value: { id, program: slug, released: released?.notifications ?? 0 } };
		}
		const [row] = await tx
			.insert(rounds)
			.values({ programId: program.id, ...values })
			.returning({ id: rounds.id });
		return { ok: true, value: { id: row!.id, program: slug, released: 0 } };
	});
}

/**
 * An instant as the round form shows it to edit: `YYYY-MM-DDTHH:MM` on the community's clock when that
 * reads back as the same instant (whole minutes, not the second pass of a repeated hour), else ISO 8601.
 */
export function timeFieldText(at: Date, zone: string): string {
	const part: Record<string, string> = {};
	const format = new Intl.DateTimeFormat('en-US', {
		timeZone: zone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit'
	});
	for (const p of format.formatToParts(at)) part[p.type] = p.value;
	const text = `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}`;
	const back = parseTimeInput(text, zone);
	return back.ok && back.at.getTime() === at.getTime() ? text : at.toISOString();
}
