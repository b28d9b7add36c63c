// Programmes and rounds (issue 57, docs/data.md): the migration that made what existed programme
// `membership` with one open-ended round, run over rows a portal of 0022 wrote; the rows SQL writes
// without a programme or round; windows that open and close with the clock; the community's name.
import { rmSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import { rowsOf } from '../../src/lib/server/db/rows';
import type { Database } from '../../src/lib/server/db/client';
import { nameMembershipProgram } from '../../src/lib/server/programs/membership';
import { nextRoundOf, openRoundOf, programsJson } from '../../src/lib/server/programs/rounds';
import { currentForm } from '../../src/lib/server/forms/versions';
import { createTestDatabase, engines, requireServerUrl, type TestDatabase } from '../helpers/db';
import { addMember } from '../helpers/members';
import { OUTBOX_OFF } from '../helpers/outbox';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { migrationsBefore } from '../helpers/migrations-before';
import { createServerDatabase } from '../helpers/postgres.js';
import { sql } from 'drizzle-orm';

const A = `0x${'a'.repeat(40)}`;
const B = `0x${'b'.repeat(40)}`;

/** A database at migration 0022 with a form and two applications, then migrated to the newest one. */
async function migratedOverOldRows(engine: 'pglite' | 'postgres') {
	const before = migrationsBefore(23);
	const seed = `
		insert into members (address) values ('${A}'), ('${B}');
		insert into application_forms (created_by, questions, created_at) values ('${A}', '[]', '2026-01-01T00:00:00Z');
		insert into applications (applicant_address, display_name, motivation, created_at, review)
			values ('${A}', 'Ada', 'Docs', '2026-01-10T00:00:00Z', 'pending'),
			       ('${B}', 'Bea', 'Code', '2026-01-05T00:00:00Z', 'rejected'),
			       ('${B}', 'Bea', 'Again', '2026-01-20T00:00:00Z', 'needs_info');`;
	if (engine === 'pglite') {
		const client = new PGlite(pgliteOptions('memory://'));
		const db = drizzlePglite(client);
		await migratePglite(db, { migrationsFolder: before });
		await client.exec(seed);
		await migratePglite(db, { migrationsFolder: 'drizzle' });
		rmSync(before, { recursive: true, force: true });
		return { query: async <T>(text: string) => (await client.query<T>(text)).rows, close: () => client.close() };
	}
	const database = await createServerDatabase(requireServerUrl(), { migrate: false });
	const client = postgres(database.url, { max: 1, onnotice: () => {} });
	const db = drizzlePostgres(client);
	await migratePostgres(db, { migrationsFolder: before });
	await client.unsafe(seed);
	await migratePostgres(db, { migrationsFolder: 'drizzle' });
	rmSync(before, { recursive: true, force: true });
	return {
		query: async <T>(text: string) => [...(await client.unsafe(text))] as T[],
		close: async () => {
			await client.end();
			await database.drop();
		}
	};
}

describe.each(engines)('programmes and rounds (%s)', (engine) => {
	let t: TestDatabase;
	let db: Database;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		db = t.db;
	}, 120_000);
	afterAll(() => t?.drop());

	const one = async <T>(text: string) => rowsOf<T>(await db.execute(sql.raw(text)))[0]!;

	it('the migration makes what exists programme membership with one open-ended round "Open" from the earliest row', async () => {
		const old = await migratedOverOldRows(engine);
		try {
			const programs = await old.query<{ slug: string; name: string; archived_at: string | null }>(
				'select slug, name, archived_at from programs'
			);
			expect(programs).toEqual([{ slug: 'membership', name: 'Member portal', archived_at: null }]);
			const rounds = await old.query<{ name: string; opens: string; closes_at: string | null; release_mode: string }>(
				`select name, to_char(opens_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as opens, closes_at, release_mode from rounds`
			);
			expect(rounds).toEqual([{ name: 'Open', opens: '2026-01-01 00:00', closes_at: null, release_mode: 'immediate' }]);
			const unset = await old.query<{ n: number }>(
				`select (select count(*)::int from applications a where a.program_id is distinct from (select id from programs)
					or a.round_id is distinct from (select id from rounds))
				 + (select count(*)::int from application_forms f where f.program_id is distinct from (select id from programs)) as n`
			);
			expect(unset[0]!.n).toBe(0);
			// One live application per programme and member: B's needs_info one is live, a second is refused.
			await expect(
				old.query(
					`insert into applications (applicant_address, display_name, motivation) values ('${B}', 'Bea', 'Third')`
				)
			).rejects.toThrow(/applications_one_live_per_program/);
		} finally {
			await old.close();
		}
	}, 120_000);

	it('a row SQL writes without a programme or round gets membership and the round open at its created_at', async () => {
		const address = `0x${'c'.repeat(40)}`;
		await db.execute(sql.raw(`insert into members (address) values ('${address}')`));
		const row = await one<{ program: string; round: string }>(
			`insert into applications (applicant_address, display_name, motivation) values ('${address}', 'Cy', 'Hi')
			 returning (select slug from programs p where p.id = program_id) as program, (select name from rounds r where r.id = round_id) as round`
		);
		expect(row).toEqual({ program: 'membership', round: 'Open' });
	});

	it('a round opens and closes with the clock: open at opens_at, closed at closes_at, the next one named', async () => {
		const program = await one<{ id: number }>(
			`insert into programs (slug, name) values ('builders', 'Builders') returning id`
		);
		await db.execute(
			sql.raw(`insert into rounds (program_id, name, opens_at, closes_at) values
				(${program.id}, 'Cohort 1', '2027-03-01T09:00:00Z', '2027-03-31T22:00:00Z'),
				(${program.id}, 'Cohort 2', '2027-05-01T09:00:00Z', null)`)
		);
		const at = (iso: string) => new Date(iso);
		expect(await openRoundOf(db, program.id, at('2027-03-01T08:59:59Z'))).toBeNull();
		expect((await nextRoundOf(db, program.id, at('2027-03-01T08:59:59Z')))?.name).toBe('Cohort 1');
		expect((await openRoundOf(db, program.id, at('2027-03-01T09:00:00Z')))?.name).toBe('Cohort 1');
		expect(await openRoundOf(db, program.id, at('2027-03-31T22:00:00Z'))).toBeNull();
		expect((await nextRoundOf(db, program.id, at('2027-03-31T22:00:00Z')))?.name).toBe('Cohort 2');
		expect((await openRoundOf(db, program.id, at('2099-01-01T00:00:00Z')))?.name).toBe('Cohort 2');

		const body = await programsJson(db, 'UTC', at('2027-04-10T00:00:00Z'));
		expect(body.timeZone).toBe('UTC');
		const builders = body.programs.find((p) => p.slug === 'builders')!;
		const second = await one<{ id: number }>(`select id from rounds where name = 'Cohort 2'`);
		expect(builders).toEqual({
			slug: 'builders',
			name: 'Builders',
			description: '',
			translations: {},
			open: false,
			round: null,
			nextRound: { id: second.id, name: 'Cohort 2', opensAt: '2027-05-01T09:00:00.000Z', closesAt: null }
		});
		await db.execute(sql.raw(`update programs set archived_at = now() where slug = 'builders'`));
		expect((await programsJson(db, 'UTC')).programs.map((p) => p.slug)).toEqual(['membership']);
	});

	it("a programme's current form is its own newest version; without a programme, membership's", async () => {
		const stewards = await one<{ id: number }>(
			`insert into programs (slug, name) values ('stewards', 'Stewards') returning id`
		);
		const own = await one<{ id: number }>(
			`insert into application_forms (program_id, created_by, questions) values (${stewards.id}, '${A}',
			 '[{"key":"why","label":"Why steward?","type":"short_text","required":false}]') returning id`
		);
		const later = Date.now() + 10_000;
		expect((await currentForm(db, stewards.id, later)).id).toBe(own.id);
		expect((await currentForm(db, undefined, later)).id).not.toBe(own.id);
		const membership = await one<{ id: number | null }>(
			`select max(f.id) as id from application_forms f join programs p on p.id = f.program_id where p.slug = 'membership'`
		);
		expect((await currentForm(db, undefined, later)).id).toBe(membership.id);
	});

	it('membership takes the community name while it has the name the migration gave it, and keeps a later one', async () => {
		await nameMembershipProgram(db, 'Lens Garden');
		expect((await one<{ name: string }>(`select name from programs where slug = 'membership'`)).name).toBe(
			'Lens Garden'
		);
		await nameMembershipProgram(db, 'Another Name');
		expect((await one<{ name: string }>(`select name from programs where slug = 'membership'`)).name).toBe(
			'Lens Garden'
		);
		await db.execute(sql.raw(`update programs set name = 'Member portal' where slug = 'membership'`));
	});

	it('submitApplication takes its target programme: one member in two at once; unknown or archived 404; closed 409 round_closed in the zone given; nothing written', async () => {
		await db.execute(
			sql.raw(
				`with g as (insert into programs (slug, name) values ('guild', 'Guild') returning id),
				 w as (insert into programs (slug, name) values ('wardens', 'Wardens') returning id),
				 s as (insert into programs (slug, name) values ('someday', 'Someday') returning id),
				 x as (insert into programs (slug, name, archived_at) values ('gone', 'Gone', now()) returning id)
				 insert into rounds (program_id, name, opens_at) select id, 'Now', now() - interval '1 day' from g
				 union all select id, 'Now', now() - interval '1 day' from w
				 union all select id, 'Later', '2099-06-30T22:00:00Z' from s
				 union all select id, 'Now', now() - interval '1 day' from x`
			)
		);
		const member = await addMember(db);
		const good = { displayName: 'Ada', motivation: 'Builds' };
		const [guild, wardens] = await Promise.all(
			['guild', 'wardens'].map((program) => submitApplication(db, OUTBOX_OFF, member, good, {}, { program }))
		);
		expect([guild!.ok, wardens!.ok]).toEqual([true, true]);
		const rows = `select count(*)::int as n from applications where applicant_address = '${member.address}'`;
		expect((await one<{ n: number }>(rows)).n).toBe(2);
		expect(await submitApplication(db, OUTBOX_OFF, member, good, {}, { program: 'guild' })).toMatchObject({
			ok: false,
			status: 409
		});
		// Each refusal to a member of its own: the hourly submission limit counts every attempt.
		for (const program of ['nope', 'gone', 'Guild', '__proto__'])
			expect(await submitApplication(db, OUTBOX_OFF, await addMember(db), good, {}, { program })).toMatchObject({
				ok: false,
				status: 404
			});
		const closed = await submitApplication(
			db,
			OUTBOX_OFF,
			await addMember(db),
			good,
			{},
			{ program: 'someday', timeZone: 'Asia/Tokyo' }
		);
		expect(closed).toMatchObject({
			ok: false,
			status: 409,
			code: 'round_closed',
			nextOpensAt: '2099-06-30T22:00:00.000Z'
		});
		expect(closed.ok ? '' : closed.message).toContain('1 July 2099 at 07:00 (Asia/Tokyo)');
		expect((await one<{ n: number }>(rows)).n).toBe(2);
		const elsewhere = await one<{ n: number }>(
			`select count(*)::int as n from applications a join programs p on p.id = a.program_id where p.slug in ('someday', 'gone')`
		);
		expect(elsewhere.n).toBe(0);
	});

	it.runIf(engine === 'postgres')(
		'an archive that holds the programme row first turns a concurrent submission into the 404, nothing written',
		async () => {
			await db.execute(
				sql.raw(
					`with p as (insert into programs (slug, name) values ('racing', 'Racing') returning id)
					 insert into rounds (program_id, name, opens_at) select id, 'Now', now() - interval '1 day' from p`
				)
			);
			const member = await addMember(db);
			// What archiveProgram does, held open: the row FOR UPDATE, no live application counted yet.
			const archiver = postgres(t.url!, { max: 1, onnotice: () => {} });
			try {
				// Handed out in an object: a promise returned from begin() would hold the commit until it settles.
				const { pending } = await archiver.begin(async (tx) => {
					await tx`select id from programs where slug = 'racing' for update`;
					const pending = submitApplication(
						db,
						OUTBOX_OFF,
						member,
						{ displayName: 'Ada', motivation: 'Races' },
						{},
						{ program: 'racing' }
					);
					// The submission waits on the row (it has read the programme as open before its transaction).
					await new Promise((resolve) => setTimeout(resolve, 300));
					await tx`update programs set archived_at = now() where slug = 'racing'`;
					return { pending };
				});
				expect(await pending).toMatchObject({ ok: false, status: 404 });
			} finally {
				await archiver.end();
			}
			const written = await one<{ n: number }>(
				`select count(*)::int as n from applications a join programs p on p.id = a.program_id where p.slug = 'racing'`
			);
			expect(written.n).toBe(0);
		}
	);
});
