import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationVotes } from '../../src/lib/server/db/schema';
import { writeFormVersion } from '../../src/lib/server/forms/save-version';
import { castVote } from '../../src/lib/server/reviews/votes';
import { reviewDetail } from '../../src/lib/server/reviews/reviewer-detail';
import { reviewQueue } from '../../src/lib/server/reviews/queue';
import { tallyFor } from '../../src/lib/server/reviews/tally';
import { parseTableQuery, reviewTable } from '../../src/lib/server/applications/review-table';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember, seedApplication } from '../helpers/members';
import type { SignedInMember } from '../../src/lib/server/auth/guards';

const RUBRIC = [
	{ key: 'fit', label: 'Fit with the community' },
	{ key: 'effort', label: 'Effort', help: 'How much care went into it' }
];

describe.each(engines)('reviewer votes on %s', (engine) => {
	let t: TestDatabase;
	const admin = adminMember();
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		await writeFormVersion(t.db, admin, { rubric: RUBRIC });
	});
	afterAll(() => t?.drop());

	const reviewer = async (): Promise<SignedInMember> => ({ ...(await addMember(t.db)), isReviewer: true });
	const pending = async () => seedApplication(t.db, (await addMember(t.db)).address);
	const approve = { vote: 'approve', comment: '', 'score.fit': '4', 'score.effort': '5' };
	const rowsOf = (id: string) => t.db.select().from(applicationVotes).where(eq(applicationVotes.applicationId, id));

	it('castVote appends a vote with its scores; voting again adds a row and the newest counts', async () => {
		const app = await pending();
		const r = await reviewer();
		const first = await castVote(t.db, OUTBOX_OFF, r, app.id, approve);
		expect(first.ok).toBe(true);
		const second = await castVote(t.db, OUTBOX_OFF, r, app.id, {
			vote: 'reject',
			comment: 'Too vague',
			'score.fit': '2',
			'score.effort': '1'
		});
		expect(second.ok).toBe(true);
		const rows = await rowsOf(app.id);
		expect(rows.map((v) => v.vote).sort()).toEqual(['approve', 'reject']);
		expect(rows.find((v) => v.vote === 'approve')?.scores).toEqual({ fit: 4, effort: 5 });
		expect(await tallyFor(t.db, app.id)).toEqual({ approve: 0, reject: 1, abstain: 0, meanScore: 1.5 });
	});

	it('refuses a decided application (409), the reviewer’s own (403) and an unknown id (404), writing nothing', async () => {
		const app = await pending();
		const moved = await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: app.id,
			field: 'review',
			to: 'approved'
		});
		expect(moved.ok).toBe(true);
		const r = await reviewer();
		expect(await castVote(t.db, OUTBOX_OFF, r, app.id, approve)).toMatchObject({ ok: false, status: 409 });
		const own = await seedApplication(t.db, r.address);
		expect(await castVote(t.db, OUTBOX_OFF, r, own.id, approve)).toMatchObject({ ok: false, status: 403 });
		expect(await castVote(t.db, OUTBOX_OFF, r, '00000000-0000-4000-8000-000000000000', approve)).toMatchObject({
			ok: false,
			status: 404
		});
		expect(await rowsOf(app.id)).toEqual([]);
		expect(await rowsOf(own.id)).toEqual([]);
	});

	it('answers 400 for each bad field: vote, a missing or odd score, a reject without comment, a long comment', async () => {
		const app = await pending();
		const r = await reviewer();
		const cases: [Record<string, unknown>, string][] = [
			[{ ...approve, vote: 'maybe' }, 'vote'],
			[{ ...approve, vote: undefined }, 'vote'],
			[{ ...approve, 'score.fit': undefined }, 'score.fit'],
			[{ ...approve, 'score.fit': '6' }, 'score.fit'],
			[{ ...approve, 'score.effort': '2.5' }, 'score.effort'],
			[{ ...approve, 'score.effort': ['3', '4'] }, 'score.effort'],
			[{ ...approve, vote: 'reject' }, 'comment'],
			[{ ...approve, comment: 'x'.repeat(2001) }, 'comment']
		];
		for (const [input, field] of cases) {
			const outcome = await castVote(t.db, OUTBOX_OFF, r, app.id, input);
			expect(outcome.ok).toBe(false);
			if (!outcome.ok && outcome.status === 400) expect(Object.keys(outcome.errors)).toContain(field);
			else throw new Error(`expected a 400 on ${field}`);
		}
		// An abstention needs no scores.
		expect((await castVote(t.db, OUTBOX_OFF, r, app.id, { vote: 'abstain' })).ok).toBe(true);
		expect((await rowsOf(app.id)).length).toBe(1);
	});

	it('the 241st vote within the hour by one reviewer answers 429 and is not written', async () => {
		const app = await pending();
		const r = await reviewer();
		await t.db.execute(
			sql`insert into rate_limit_counters (subject, action, window_started_at, window_ends_at, count) values (${r.address}, 'vote', now(), now() + interval '1 hour', 240)`
		);
		const outcome = await castVote(t.db, OUTBOX_OFF, r, app.id, approve);
		expect(outcome).toMatchObject({ ok: false, status: 429 });
		expect(await rowsOf(app.id)).toEqual([]);
	});

	it('blind until one’s own approve or reject: nothing before, nor after an abstention; all after; admins always', async () => {
		const app = await pending();
		const [a, b] = [await reviewer(), await reviewer()];
		await castVote(t.db, OUTBOX_OFF, a, app.id, { ...approve, comment: 'secret comment of A' });
		const before = await reviewDetail(t.db, b, app.id);
		expect(before?.others).toBeNull();
		expect(JSON.stringify(before)).not.toContain('secret comment of A');
		expect((await reviewDetail(t.db, admin, app.id))?.others?.map((v) => v.comment)).toEqual(['secret comment of A']);
		await castVote(t.db, OUTBOX_OFF, b, app.id, { vote: 'abstain' });
		const abstained = await reviewDetail(t.db, b, app.id);
		expect(abstained?.others).toBeNull();
		expect(JSON.stringify(abstained)).not.toContain('secret comment of A');
		await castVote(t.db, OUTBOX_OFF, b, app.id, approve);
		const after = await reviewDetail(t.db, b, app.id);
		expect(after?.others?.map((v) => v.reviewerAddress)).toEqual([a.address]);
		expect(after?.mine.map((v) => v.vote)).toEqual(['approve', 'abstain']);
	});

	it('the queue lists pending applications the reviewer has not voted on (not their own), oldest first; voted lists theirs', async () => {
		const r = await reviewer();
		const [x, y] = [await pending(), await pending()];
		await seedApplication(t.db, r.address);
		const queue = await reviewQueue(t.db, r.address, { tab: 'queue' }, 1000);
		const ids = queue.rows.map((row) => row.id);
		expect(ids).toContain(x.id);
		expect(ids.indexOf(x.id)).toBeLessThan(ids.indexOf(y.id));
		expect(queue.rows.some((row) => row.applicantAddress === r.address)).toBe(false);
		await castVote(t.db, OUTBOX_OFF, r, x.id, approve);
		await castVote(t.db, OUTBOX_OFF, r, x.id, { vote: 'abstain' });
		const after = await reviewQueue(t.db, r.address, { tab: 'queue' }, 1000);
		expect(after.rows.map((row) => row.id)).not.toContain(x.id);
		const voted = await reviewQueue(t.db, r.address, { tab: 'voted' }, 1000);
		expect(voted.rows).toEqual([expect.objectContaining({ id: x.id, vote: 'abstain' })]);
	});

	it('the review table: counts and mean per row, votes=ready at the quorum edge, sort by score', async () => {
		const [low, high, none] = [await pending(), await pending(), await pending()];
		const [a, b] = [await reviewer(), await reviewer()];
		await castVote(t.db, OUTBOX_OFF, a, low.id, { ...approve, 'score.fit': '1', 'score.effort': '2' });
		await castVote(t.db, OUTBOX_OFF, a, high.id, approve);
		await castVote(t.db, OUTBOX_OFF, b, high.id, {
			vote: 'reject',
			comment: 'no',
			'score.fit': '3',
			'score.effort': '3'
		});
		const table = await reviewTable(t.db, parseTableQuery(new URLSearchParams('sort=score')), 1000, { quorum: 2 });
		const ids = table.rows.map((r) => r.id);
		expect(ids.indexOf(high.id)).toBeLessThan(ids.indexOf(low.id));
		expect(ids.indexOf(low.id)).toBeLessThan(ids.indexOf(none.id));
		expect(table.rows.find((r) => r.id === high.id)?.votes).toEqual({
			approve: 1,
			reject: 1,
			abstain: 0,
			meanScore: 3.75
		});
		const ready = await reviewTable(t.db, parseTableQuery(new URLSearchParams('votes=ready')), 1000, { quorum: 2 });
		expect(ready.rows.map((r) => r.id)).toContain(high.id);
		expect(ready.rows.map((r) => r.id)).not.toContain(low.id);
		const needed = await reviewTable(t.db, parseTableQuery(new URLSearchParams('votes=needed')), 1000, { quorum: 2 });
		expect(needed.rows.map((r) => r.id)).toEqual(expect.arrayContaining([low.id, none.id]));
		expect(needed.rows.map((r) => r.id)).not.toContain(high.id);
		// A changed vote is still one reviewer: the count stays under the quorum.
		await castVote(t.db, OUTBOX_OFF, a, low.id, { vote: 'abstain' });
		const still = await reviewTable(t.db, parseTableQuery(new URLSearchParams('votes=ready')), 1000, { quorum: 2 });
		expect(still.rows.map((r) => r.id)).not.toContain(low.id);
	});
});
