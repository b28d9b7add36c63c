// What /apply reads (issue 60, docs/pages-and-forms.md "/apply"): the programmes with the member's drafts,
// and what the member sent with everything the page shows beside it (history, files, the versions answered,
// round and programme names, the edit lock's facts), in two statements sent together, whatever the member
// has sent; the page's facts never reach the browser's data.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFormData } from '../../src/lib/server/applications/apply-page';
import { lockWords } from '../../src/lib/server/applications/own';
import { memberRecord, standingsAndRecord } from '../../src/lib/server/applications/record';
import type { Database } from '../../src/lib/server/db/client';
import { applyMigrations } from '../../src/lib/server/db/migrate';
import * as schema from '../../src/lib/server/db/schema';
import { applyProgramOf, programStandings } from '../../src/lib/server/programs/rounds';
import { addMember, eventsOf, seedApplication } from '../helpers/members';

describe('/apply reads what the member sent in few statements', () => {
	const client = new PGlite('memory://', { extensions: { pg_trgm } });
	let statements = 0;
	const db = drizzle(client, { schema, logger: { logQuery: () => void statements++ } }) as unknown as Database;
	beforeAll(() => applyMigrations(db, 'pglite', 'drizzle'), 60_000);
	afterAll(() => client.close());

	it('answers the page from two statements (seven, then three, before) and keeps every part of it', async () => {
		const member = await addMember(db);
		const [membership] = await db.select().from(schema.programs).where(eq(schema.programs.slug, 'membership'));
		const questions = [{ key: 'cv', label: 'CV', type: 'file', required: false }];
		const [version] = await db
			.insert(schema.applicationForms)
			.values({ programId: membership!.id, createdBy: '0x1', questions: questions as never })
			.returning();
		// Another programme, open, that the member applied to first: rounds and programmes are named.
		const [grants] = await db.insert(schema.programs).values({ slug: 'grants', name: 'Grants' }).returning();
		const [grantsRound] = await db
			.insert(schema.rounds)
			.values({ programId: grants!.id, name: 'Spring', opensAt: new Date(Date.now() - 60_000) })
			.returning();
		await db.insert(schema.applications).values({
			applicantAddress: member.address,
			displayName: 'Ada',
			motivation: 'Grants, please.',
			programId: grants!.id,
			roundId: grantsRound!.id
		});
		const sent = await seedApplication(db, member.address);
		await db.update(schema.applications).set({ formId: version!.id }).where(eq(schema.applications.id, sent.id));
		const [file] = await db
			.insert(schema.applicationFiles)
			.values({
				applicationId: sent.id,
				questionKey: 'cv',
				name: 'cv.pdf',
				contentType: 'application/pdf',
				bytes: 1234,
				sha256: 'a'.repeat(64)
			})
			.returning();
		// Their own edit is not a move; a reviewer's vote locks editing.
		await db.insert(schema.applicationEvents).values({
			applicationId: sent.id,
			executorAddress: member.address,
			field: 'review',
			fromState: 'pending',
			toState: 'pending',
			reason: 'edited'
		});
		await db
			.insert(schema.applicationVotes)
			.values({ applicationId: sent.id, reviewerAddress: '0x2', vote: 'approve' });
		await db
			.insert(schema.applicationDrafts)
			.values({ memberAddress: member.address, programId: membership!.id, fields: { displayName: 'Ada again' } });

		// As /apply reads it (routes/apply/apply-route.ts): the programmes with the member's drafts, and what they sent.
		const page = async () => {
			const { standings, record } = await standingsAndRecord(db, member.address);
			return applyFormData(db, member, record, applyProgramOf(standings), 'UTC', null);
		};
		await page(); // the current form is cached for a second (forms/versions.ts)
		statements = 0;
		const data = await page();
		expect(statements).toBe(2);

		const [event] = await eventsOf(db, sent.id);
		const { executorAddress: _who, ...seen } = event!;
		expect(data.applications.map((a) => a.id)).toEqual([sent.id]);
		expect(data.applications[0]!.events).toEqual([{ ...seen, executor: 'you' }]);
		expect(data.applications[0]!.events[0]!.createdAt).toBeInstanceOf(Date);
		expect(data.applications[0]).not.toHaveProperty('facts');
		expect(data.applications[0]).not.toHaveProperty('votesApprove');
		expect(data.files).toEqual({
			[file!.id]: { id: file!.id, name: 'cv.pdf', contentType: 'application/pdf', bytes: 1234 }
		});
		expect(data.askedBy).toEqual({ [version!.id]: questions });
		const [round] = await db.select().from(schema.rounds).where(eq(schema.rounds.id, sent.roundId));
		expect(data.roundNames).toEqual({ [sent.roundId]: round!.name });
		expect(data.others).toEqual([
			{ program: { slug: 'grants', name: 'Grants', translations: {} }, review: 'pending', archived: false }
		]);
		expect(data.editable).toBe(false);
		expect(data.editLocked).toBe(lockWords('voted'));
		expect(data.draft?.fields.displayName).toBe('Ada again');

		// Each programme's draft is the member's own, beside its programme; the programmes are programStandings'.
		const other = await addMember(db);
		await db.insert(schema.applicationDrafts).values([
			{ memberAddress: member.address, programId: grants!.id, fields: { displayName: 'Ada for grants' } },
			{ memberAddress: other.address, programId: membership!.id, fields: { displayName: 'Someone else' } }
		]);
		const read = await standingsAndRecord(db, member.address.toUpperCase().replace('0X', '0x'));
		expect(read.standings).toEqual(await programStandings(db));
		expect(read.standings.map((s) => s.program.slug)).toEqual(['membership', 'grants']);
		const fields = (id: number) => read.record.drafts.get(id)?.fields;
		expect(fields(membership!.id)).toEqual({ displayName: 'Ada again' });
		expect(fields(grants!.id)).toEqual({ displayName: 'Ada for grants' });
		expect(read.record.drafts.get(membership!.id)?.updatedAt).toBeInstanceOf(Date);
		expect(read.record.drafts).toEqual((await memberRecord(db, member.address)).drafts);
		// A programme archived: out of the standings, and its draft with it (no form shows it).
		await db.update(schema.programs).set({ archivedAt: new Date() }).where(eq(schema.programs.id, grants!.id));
		const archived = await standingsAndRecord(db, member.address);
		expect(archived.standings.map((s) => s.program.slug)).toEqual(['membership']);
		expect([...archived.record.drafts.keys()]).toEqual([membership!.id]);
		// What the member sent to it stays in their record (the page names it among the others, archived).
		expect(archived.record.applications).toHaveLength(2);
		expect(archived.record.applications.map((a) => a.programId)).toContain(grants!.id);
	}, 60_000);
});
