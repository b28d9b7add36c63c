import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applicationVotes, reviewAssignments, reviewers } from '../../src/lib/server/db/schema';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { saveReviewSettings } from '../../src/lib/server/reviews/roster';
import { addTeamMember, removeTeamMember } from '../../src/lib/server/team/team';
import { declareConflict } from '../../src/lib/server/reviews/conflicts';
import { NO_ROSTER } from '../../src/lib/server/platform/roster';
import { castVote } from '../../src/lib/server/reviews/votes';
import { reviewDetail } from '../../src/lib/server/reviews/reviewer-detail';
import { assignedTo, reviewQueue } from '../../src/lib/server/reviews/queue';
import { tallyFor } from '../../src/lib/server/reviews/tally';
import { workloadOf } from '../../src/lib/server/reviews/workload';
import { rowsOf } from '../../src/lib/server/db/rows';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember } from '../helpers/members';
import type { SignedInMember } from '../../src/lib/server/auth/guards';

// The assignment rule of decision 0040 through the functions the routes call, on both engines.
describe.each(engines)('review assignment on %s', (engine) => {
	let t: TestDatabase;
	const admin = adminMember();
	let pool: SignedInMember[];
	beforeAll(async () => {
		t = await createTestDatabase(engine, { max: 25 });
		pool = await Promise.all(Array.from({ length: 5 }, async () => ({ ...(await addMember(t.db)), isReviewer: true })));
		for (const r of pool)
			expect((await addTeamMember(t.db, null, admin, { address: r.address, role: 'reviewer' })).ok).toBe(true);
		expect((await saveReviewSettings(t.db, admin, { perApplication: '2' })).ok).toBe(true);
	});
	afterAll(() => t?.drop());

	const submit = async (member?: SignedInMember) => {
		const applicant = member ?? (await addMember(t.db));
		const outcome = await submitApplication(t.db, OUTBOX_OFF, applicant, {
			displayName: 'A',
			motivation: 'B',
			contact: ''
		});
		if (!outcome.ok) throw new Error(JSON.stringify(outcome));
		return outcome.value.application;
	};
	const assigned = async (id: string) =>
		(
			await t.db
				.select({ r: reviewAssignments.reviewerAddress })
				.from(reviewAssignments)
				.where(eq(reviewAssignments.applicationId, id))
		)
			.map((a) => a.r)
			.sort();
	const openCounts = async () =>
		(
			await workloadOf(
				t.db,
				pool.map((p) => p.address)
			)
		).map((w) => w.open);
	const clear = async () => {
		await t.db.execute(sql`delete from review_assignments`);
		await t.db.execute(sql`update applications set review = 'rejected' where review = 'pending'`);
	};

	// The open-assignment counts the database keeps (drizzle/0016, decision 0042) against the definition,
	// counted from the tables: after every test here, whatever it changed and however.
	const kept = async () =>
		rowsOf<{ r: string; n: number }>(
			await t.db.execute(
				sql`select reviewer_address as r, open as n from reviewer_open_assignments where open <> 0 order by 1`
			)
		).map((row) => ({ ...row }));
	const recounted = async () =>
		rowsOf<{ r: string; n: number }>(
			await t.db.execute(sql`select a.reviewer_address as r, count(*)::int as n
				from review_assignments a join applications p on p.id = a.application_id
				where p.review = 'pending' and not exists (select 1 from application_votes v
					where v.application_id = a.application_id and v.reviewer_address = a.reviewer_address)
				group by 1 order by 1`)
		).map((row) => ({ ...row }));
	afterEach(async () => {
		expect(await kept()).toEqual(await recounted());
	});

	it('the kept counts follow changes made by SQL: votes deleted, reviews moved back and forth, TRUNCATE', async () => {
		await clear();
		const [a, b] = [await submit(), await submit()];
		const [r1] = await assigned(a.id);
		await t.db.execute(
			sql`insert into application_votes (application_id, reviewer_address, vote) values (${a.id}, ${r1}, 'approve'), (${a.id}, ${r1}, 'reject')`
		);
		expect(await kept()).toEqual(await recounted());
		await t.db.execute(sql`delete from application_votes where application_id = ${a.id}`);
		expect(await kept()).toEqual(await recounted());
		await t.db.execute(sql`update applications set review = 'needs_info' where id in (${a.id}, ${b.id})`);
		expect(await kept()).toEqual([]);
		await t.db.execute(sql`update applications set review = 'pending' where id = ${b.id}`);
		expect(await kept()).toEqual(await recounted());
		expect((await kept()).reduce((sum, k) => sum + k.n, 0)).toBe(2);
		await t.db.execute(sql`truncate application_votes`);
		expect(await kept()).toEqual(await recounted());
		await t.db.execute(sql`update applications set review = 'rejected' where id = ${b.id}`);
	});

	it('assigns exactly N to each submission, the least loaded first, spread evenly', async () => {
		await clear();
		const apps = [];
		for (let i = 0; i < 5; i++) apps.push(await submit());
		for (const app of apps) expect(await assigned(app.id)).toHaveLength(2);
		// Ten assignments over five reviewers: two each.
		expect(await openCounts()).toEqual([2, 2, 2, 2, 2]);
		// Ties go to the longest since their last assignment: the first application's reviewers come round again.
		const sixth = await submit();
		expect(await assigned(sixth.id)).toEqual(await assigned(apps[0]!.id));
	});

	it('never assigns the applicant, even when they are the least loaded reviewer', async () => {
		await clear();
		const applicant = pool[0]!;
		const app = await submit(applicant);
		expect(await assigned(app.id)).toHaveLength(2);
		expect(await assigned(app.id)).not.toContain(applicant.address);
		await t.db.execute(sql`update applications set review = 'rejected' where id = ${app.id}`);
	});

	it('a vote closes an assignment; a conflict passes it on, refuses the vote (403) and hides the others', async () => {
		await clear();
		const app = await submit();
		const [first, second] = await assigned(app.id);
		const r1 = pool.find((p) => p.address === first)!;
		const r2 = pool.find((p) => p.address === second)!;
		expect((await assignedTo(t.db, r1.address)).map((a) => a.id)).toEqual([app.id]);
		// The assigned application is not repeated in the rest of the queue.
		expect((await reviewQueue(t.db, r1.address, { tab: 'queue' })).rows.map((r) => r.id)).not.toContain(app.id);
		expect((await castVote(t.db, OUTBOX_OFF, r2, app.id, { vote: 'approve' })).ok).toBe(true);
		expect((await declareConflict(t.db, NO_ROSTER, r1, app.id, { reason: 'My brother' })).ok).toBe(true);
		const now = await assigned(app.id);
		expect(now).toHaveLength(2);
		expect(now).not.toContain(r1.address);
		expect(now).toContain(r2.address);
		expect(await castVote(t.db, OUTBOX_OFF, r1, app.id, { vote: 'approve' })).toMatchObject({ ok: false, status: 403 });
		const seen = await reviewDetail(t.db, r1, app.id);
		expect(seen?.others).toBeNull();
		expect(seen?.conflict?.reason).toBe('My brother');
		expect((await reviewQueue(t.db, r1.address, { tab: 'queue' })).rows.map((r) => r.id)).not.toContain(app.id);
		expect(await declareConflict(t.db, NO_ROSTER, r1, app.id, { reason: '' })).toMatchObject({
			ok: false,
			status: 400
		});
		expect(await declareConflict(t.db, NO_ROSTER, r1, app.id, { reason: 'x'.repeat(501) })).toMatchObject({
			ok: false,
			status: 400
		});
	});

	it('blind until one’s own approve or reject: an abstention opens nothing; the vote after is marked', async () => {
		await clear();
		const app = await submit();
		const [a, b] = pool;
		expect((await castVote(t.db, OUTBOX_OFF, a!, app.id, { vote: 'approve' })).ok).toBe(true);
		expect((await castVote(t.db, OUTBOX_OFF, b!, app.id, { vote: 'abstain' })).ok).toBe(true);
		expect((await reviewDetail(t.db, b!, app.id))?.others).toBeNull();
		expect((await castVote(t.db, OUTBOX_OFF, b!, app.id, { vote: 'reject', comment: 'No' })).ok).toBe(true);
		expect((await reviewDetail(t.db, b!, app.id))?.others?.map((v) => v.reviewerAddress)).toEqual([a!.address]);
		// Now b has read a's vote: the next vote of b says so.
		expect((await castVote(t.db, OUTBOX_OFF, b!, app.id, { vote: 'approve' })).ok).toBe(true);
		const rows = await t.db.select().from(applicationVotes).where(eq(applicationVotes.applicationId, app.id));
		const flags = rows
			.filter((r) => r.reviewerAddress === b!.address)
			.sort((x, y) => x.id - y.id)
			.map((r) => r.afterSeeingOthers);
		expect(flags).toEqual([false, false, true]);
		expect(rows.find((r) => r.reviewerAddress === a!.address)?.afterSeeingOthers).toBe(false);
	});

	it('a removed reviewer’s votes stay and count; their open assignments pass on', async () => {
		await clear();
		const extra = { ...(await addMember(t.db)), isReviewer: true };
		await addTeamMember(t.db, null, admin, { address: extra.address, role: 'reviewer' });
		const voted = await submit();
		expect((await castVote(t.db, OUTBOX_OFF, extra, voted.id, { vote: 'approve' })).ok).toBe(true);
		// The next application's second reviewer is the extra one.
		const next = await submit();
		const [, other] = await assigned(next.id);
		await t.db.execute(
			sql`delete from review_assignments where application_id = ${next.id} and reviewer_address = ${other}`
		);
		await t.db.execute(
			sql`insert into review_assignments (application_id, reviewer_address, assigned_by) values (${next.id}, ${extra.address}, 'auto') on conflict do nothing`
		);
		expect(await assigned(next.id)).toContain(extra.address);
		expect((await removeTeamMember(t.db, NO_ROSTER, admin, { address: extra.address, role: 'reviewer' })).ok).toBe(
			true
		);
		expect(await t.db.select().from(reviewers).where(eq(reviewers.address, extra.address))).toEqual([]);
		expect(await assigned(next.id)).toHaveLength(2);
		expect(await assigned(next.id)).not.toContain(extra.address);
		expect((await tallyFor(t.db, voted.id)).approve).toBe(1);
		expect(await removeTeamMember(t.db, NO_ROSTER, admin, { address: extra.address, role: 'reviewer' })).toMatchObject({
			ok: false,
			status: 404
		});
	});

	it('a resubmission is topped up to N', async () => {
		await clear();
		const applicant = await addMember(t.db);
		const app = await submit(applicant);
		const moved = await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: app.id,
			field: 'review',
			to: 'needs_info',
			reason: 'More please'
		});
		expect(moved.ok).toBe(true);
		const [gone] = await assigned(app.id);
		await t.db.execute(
			sql`delete from review_assignments where application_id = ${app.id} and reviewer_address = ${gone}`
		);
		expect(await assigned(app.id)).toHaveLength(1);
		await submit(applicant);
		expect(await assigned(app.id)).toHaveLength(2);
	});

	it.runIf(engine === 'postgres')('twenty submissions at once never over-assign', async () => {
		await clear();
		const members = await Promise.all(Array.from({ length: 20 }, () => addMember(t.db)));
		const apps = await Promise.all(members.map((m) => submit(m)));
		for (const app of apps) expect(await assigned(app.id)).toHaveLength(2);
		// Forty assignments over five reviewers: eight each, exactly.
		expect(await openCounts()).toEqual([8, 8, 8, 8, 8]);
	});

	it('a programme may take its own number of reviewers; empty takes the default again (issue 57)', async () => {
		await clear();
		// Builders is the one open programme while membership's round is closed (so /apply serves it).
		await t.db.execute(sql`insert into programs (slug, name) values ('builders', 'Builders')`);
		await t.db.execute(
			sql`insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() - interval '1 day' from programs where slug = 'builders'`
		);
		await t.db.execute(sql`update rounds set closes_at = now() where name = 'Open'`);
		try {
			for (const [perApplication, program] of [
				['1', 'nope'],
				['11', 'builders'],
				['', undefined],
				['x', 'builders']
			] as const) {
				const refused = await saveReviewSettings(t.db, admin, { perApplication, program });
				expect(refused.ok, `${perApplication} ${program}`).toBe(false);
				if (!refused.ok) expect(refused.status).toBe(400);
			}
			expect((await saveReviewSettings(t.db, admin, { perApplication: '1', program: 'builders' })).ok).toBe(true);
			const one = await submit();
			expect(await assigned(one.id)).toHaveLength(1);
			expect((await saveReviewSettings(t.db, admin, { perApplication: '', program: 'builders' })).ok).toBe(true);
			const two = await submit();
			expect(await assigned(two.id)).toHaveLength(2);
			// The default stayed 2 throughout.
			expect((await saveReviewSettings(t.db, admin, { perApplication: '0', program: 'builders' })).ok).toBe(true);
			expect(await assigned((await submit()).id)).toHaveLength(0);
		} finally {
			await t.db.execute(sql`update rounds set closes_at = null where name = 'Open'`);
			await t.db.execute(sql`update programs set archived_at = now() where slug = 'builders'`);
		}
	});
});
