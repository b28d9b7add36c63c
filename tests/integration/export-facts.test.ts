// applications.csv reads each application's last tx hash and note count from its own row (drizzle/0020,
// decision 0044), kept by triggers on the audit log and the notes: after any inserts (several rows in
// one statement among them), changes and deletions by hand and a TRUNCATE, both equal what the export
// computed before from every audit row and note; the migration's backfill does too.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db/client';
import { rowsOf } from '../../src/lib/server/db/rows';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';
import { addMember, seedApplication } from '../helpers/members';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const EXECUTOR = addr(7);
const APPS = 4;

interface Facts {
	id: string;
	last_tx_hash: string | null;
	notes_count: number;
}

/** What each row carries. */
async function kept(db: Database): Promise<Facts[]> {
	return rowsOf<Facts>(await db.execute(sql`select id, last_tx_hash, notes_count from applications order by id`));
}

/** The same, from every audit row and note (the export's per-row subqueries before drizzle/0020). */
async function fromEveryRow(db: Database): Promise<Facts[]> {
	return rowsOf<Facts>(
		await db.execute(sql`select a.id,
			(select e.tx_hash from application_events e where e.application_id = a.id and e.tx_hash is not null order by e.id desc limit 1) as last_tx_hash,
			(select count(*)::int from application_notes n where n.application_id = a.id) as notes_count
			from applications a order by a.id`)
	);
}

const hash = (c: string) => `0x${c.repeat(64)}`;
const tx = fc.option(fc.constantFrom(...['a', 'b', 'c', 'd'].map(hash)), { nil: null, freq: 2 });
const step = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('events' as const),
			rows: fc.array(fc.record({ app: fc.nat({ max: APPS - 1 }), tx }), { minLength: 1, maxLength: 4 })
		})
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('notes' as const),
			apps: fc.array(fc.nat({ max: APPS - 1 }), { minLength: 1, maxLength: 4 })
		})
	},
	// By hand: a tx hash changed or cleared, an audit row or a note moved to another application, deletions.
	fc.record({ kind: fc.constant('retx' as const), app: fc.nat({ max: APPS - 1 }), tx }),
	fc.record({
		kind: fc.constant('move-event' as const),
		from: fc.nat({ max: APPS - 1 }),
		to: fc.nat({ max: APPS - 1 })
	}),
	fc.record({
		kind: fc.constant('move-note' as const),
		from: fc.nat({ max: APPS - 1 }),
		to: fc.nat({ max: APPS - 1 })
	}),
	fc.record({ kind: fc.constant('drop-event' as const), app: fc.nat({ max: APPS - 1 }) }),
	fc.record({ kind: fc.constant('drop-notes' as const), app: fc.nat({ max: APPS - 1 }) })
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

describe.each(engines)('the last tx hash and note count on each application on %s', (engine) => {
	let t: TestDatabase;
	const apps: string[] = [];
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		for (let i = 0; i < APPS; i++) {
			const member = await addMember(t.db, addr(100 + i));
			apps.push((await seedApplication(t.db, member.address)).id);
		}
	}, 60_000);
	afterAll(() => t?.drop());

	const newest = (app: number) =>
		sql`(select max(id) from application_events where application_id = ${apps[app]}::uuid)`;

	async function apply(s: Step) {
		switch (s.kind) {
			case 'events':
				await t.db
					.execute(sql`insert into application_events (application_id, executor_address, field, from_state, to_state, tx_hash)
					values ${sql.join(
						s.rows.map((r) => sql`(${apps[r.app]}::uuid, ${EXECUTOR}, 'allowlist', 'pending', 'done', ${r.tx})`),
						sql`, `
					)}`);
				return;
			case 'notes':
				await t.db.execute(sql`insert into application_notes (application_id, author_address, body)
					values ${sql.join(
						s.apps.map((a) => sql`(${apps[a]}::uuid, ${EXECUTOR}, 'a note')`),
						sql`, `
					)}`);
				return;
			case 'retx':
				await t.db.execute(sql`update application_events set tx_hash = ${s.tx} where id = ${newest(s.app)}`);
				return;
			case 'move-event':
				await t.db.execute(
					sql`update application_events set application_id = ${apps[s.to]}::uuid where id = ${newest(s.from)}`
				);
				return;
			case 'move-note':
				await t.db.execute(sql`update application_notes set application_id = ${apps[s.to]}::uuid
					where id = (select min(id) from application_notes where application_id = ${apps[s.from]}::uuid)`);
				return;
			case 'drop-event':
				await t.db.execute(sql`delete from application_events where id = ${newest(s.app)}`);
				return;
			case 'drop-notes':
				await t.db.execute(sql`delete from application_notes where application_id = ${apps[s.app]}::uuid`);
				return;
		}
	}

	it('property: after any inserts, changes and deletions, each row carries what every audit row and note say', async () => {
		let run = 0;
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
				// Every other run starts empty by TRUNCATE (its triggers clear the rows), the others by DELETE.
				if (run++ % 2) await t.db.execute(sql`truncate application_events, application_notes`);
				else {
					await t.db.execute(sql`delete from application_events`);
					await t.db.execute(sql`delete from application_notes`);
				}
				expect((await kept(t.db)).every((f) => f.last_tx_hash === null && f.notes_count === 0)).toBe(true);
				for (const s of steps) await apply(s);
				expect(await kept(t.db)).toEqual(await fromEveryRow(t.db));
			}),
			{ numRuns: engine === 'pglite' ? 40 : 25 }
		);
	}, 240_000);

	it('a portal with audit rows and notes before the migration: its backfill writes the same', async () => {
		await t.db.execute(sql`delete from application_events`);
		await t.db.execute(sql`delete from application_notes`);
		await apply({
			kind: 'events',
			rows: [
				{ app: 0, tx: hash('a') },
				{ app: 0, tx: hash('b') },
				{ app: 0, tx: null }
			]
		});
		await apply({ kind: 'events', rows: [{ app: 1, tx: hash('c') }] });
		await apply({ kind: 'notes', apps: [0, 2, 2] });
		const expected = await fromEveryRow(t.db);
		expect(expected.filter((f) => f.last_tx_hash !== null || f.notes_count > 0)).toHaveLength(3);
		expect(expected.find((f) => f.id === apps[0])).toMatchObject({ last_tx_hash: hash('b'), notes_count: 1 });
		await t.db.execute(sql`update applications set last_tx_hash = null, notes_count = 0`);
		const migration = readFileSync('drizzle/0020_export_facts.sql', 'utf8');
		const backfill = migration.slice(migration.indexOf('-- The backfill'), migration.indexOf('-- The newest tx hash'));
		for (const statement of backfill.split('--> statement-breakpoint')) await t.db.execute(sql.raw(statement));
		expect(await kept(t.db)).toEqual(expected);
	}, 60_000);

	it.runIf(engine === 'postgres' && serverUrl)(
		'notes and tx hashes written at the same moment on one application are all counted, the newest hash kept',
		async () => {
			await t.db.execute(sql`delete from application_events`);
			await t.db.execute(sql`delete from application_notes`);
			// Each transaction stays open after its insert so that the others' inserts and triggers overlap it.
			await Promise.all(
				Array.from({ length: 8 }, (_, i) =>
					t.db.transaction(async (tx) => {
						await tx.execute(sql`insert into application_notes (application_id, author_address, body)
							values (${apps[0]}::uuid, ${EXECUTOR}, 'a note')`);
						await tx.execute(sql`insert into application_events (application_id, executor_address, field, from_state, to_state, tx_hash)
							values (${apps[0]}::uuid, ${EXECUTOR}, 'distribution', 'pending', 'done', ${hash(String(i))})`);
						await tx.execute(sql`select pg_sleep(0.05)`);
					})
				)
			);
			const facts = await kept(t.db);
			expect(facts).toEqual(await fromEveryRow(t.db));
			expect(facts.find((f) => f.id === apps[0])?.notes_count).toBe(8);
		},
		60_000
	);
});
