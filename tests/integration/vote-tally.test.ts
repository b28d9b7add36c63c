// The tally of current votes that triggers keep on `applications` (drizzle/0011, docs/decisions/0033):
// after votes, re-votes, abstentions and rows written, changed or removed by hand in SQL, every
// application's tally is what a recount of `application_votes` says (done here in JavaScript, not in
// SQL); sort=score pages keep their order across cursors both ways; on Postgres, votes at the same
// moment leave a right tally and a score-sorted page or a tab count reads a page's worth of rows.
import { readFileSync } from 'node:fs';
import { fillPlaceholders, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseTableQuery, reviewTable } from '../../src/lib/server/applications/review-table';
import { rowsOf } from '../../src/lib/server/db/rows';
import { writeFormVersion } from '../../src/lib/server/forms/save-version';
import { castVote } from '../../src/lib/server/reviews/votes';
import { tallyFor, type VoteTally } from '../../src/lib/server/reviews/tally';
import type { SignedInMember } from '../../src/lib/server/auth/guards';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { nodes, type Plan } from '../helpers/plans';
import { addMember, adminMember, seedApplication } from '../helpers/members';

const RUBRIC = [
	{ key: 'fit', label: 'Fit' },
	{ key: 'effort', label: 'Effort' }
];

interface Tally extends VoteTally {
	current: number;
	scored: number;
}

/** Every application's tally recounted from application_votes: each reviewer's newest row (time, then id). */
async function recount(db: TestDatabase['db']): Promise<Map<string, Tally>> {
	const apps = rowsOf<{ id: string }>(await db.execute(sql`select id::text as id from applications`));
	const votes = rowsOf<{
		application_id: string;
		reviewer_address: string;
		vote: string;
		scores: unknown;
		at: string;
		id: string;
	}>(
		await db.execute(sql`select application_id::text, reviewer_address, vote, scores,
			to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as at, id::text from application_votes`)
	);
	const newest = new Map<string, (typeof votes)[number]>();
	for (const v of votes) {
		const key = `${v.application_id} ${v.reviewer_address}`;
		const seen = newest.get(key);
		if (!seen || v.at > seen.at || (v.at === seen.at && BigInt(v.id) > BigInt(seen.id))) newest.set(key, v);
	}
	const tallies = new Map<string, Tally & { sum: number }>(
		apps.map((a) => [a.id, { approve: 0, reject: 0, abstain: 0, current: 0, scored: 0, meanScore: null, sum: 0 }])
	);
	for (const v of newest.values()) {
		const t = tallies.get(v.application_id)!;
		t[v.vote as 'approve' | 'reject' | 'abstain']++;
		t.current++;
		const scores = Object.values((typeof v.scores === 'string' ? JSON.parse(v.scores) : v.scores) as object).filter(
			(s): s is number => typeof s === 'number'
		);
		if (v.vote !== 'abstain' && scores.length) {
			t.scored++;
			t.sum += scores.reduce((a, b) => a + b, 0) / scores.length;
		}
	}
	return new Map(
		[...tallies].map(([id, { sum, ...t }]) => [
			id,
			{ ...t, meanScore: t.scored ? Number((sum / t.scored).toFixed(9)) : null }
		])
	);
}

/** The tally the triggers keep, as the same shape. */
async function kept(db: TestDatabase['db']): Promise<Map<string, Tally>> {
	const rows = rowsOf<Record<string, string | number | null>>(
		await db.execute(sql`select id::text as id, votes_approve, votes_reject, votes_abstain, votes_current,
			votes_scored, votes_mean_score::text as mean from applications`)
	);
	return new Map(
		rows.map((r) => [
			String(r.id),
			{
				approve: Number(r.votes_approve),
				reject: Number(r.votes_reject),
				abstain: Number(r.votes_abstain),
				current: Number(r.votes_current),
				scored: Number(r.votes_scored),
				meanScore: r.mean === null ? null : Number(Number(r.mean).toFixed(9))
			}
		])
	);
}

const expectTallyRight = async (db: TestDatabase['db']) => {
	const [want, got] = [await recount(db), await kept(db)];
	expect(Object.fromEntries(got)).toEqual(Object.fromEntries(want));
	return want;
};

describe.each(engines)('the vote tally on %s', (engine) => {
	let t: TestDatabase;
	const admin = adminMember();
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		await writeFormVersion(t.db, admin, { rubric: RUBRIC });
	});
	afterAll(() => t?.drop());

	const reviewer = async (): Promise<SignedInMember> => ({ ...(await addMember(t.db)), isReviewer: true });
	const pending = async () => seedApplication(t.db, (await addMember(t.db)).address);
	const scored = (fit: number, effort: number, vote = 'approve') => ({
		vote,
		comment: vote === 'reject' ? 'Not yet.' : '',
		'score.fit': String(fit),
		'score.effort': String(effort)
	});

	it('matches a recount after votes, re-votes, abstentions, rows inserted, changed and deleted by SQL', async () => {
		const apps = [await pending(), await pending(), await pending(), await pending()];
		const [a, b, c] = [await reviewer(), await reviewer(), await reviewer()];
		const cast = async (r: SignedInMember, i: number, input: Record<string, string>) =>
			expect((await castVote(t.db, OUTBOX_OFF, r, apps[i]!.id, input)).ok).toBe(true);
		await cast(a, 0, scored(4, 5));
		await cast(b, 0, scored(2, 3, 'reject'));
		await cast(c, 0, { vote: 'abstain' });
		expect(await tallyFor(t.db, apps[0]!.id)).toEqual({ approve: 1, reject: 1, abstain: 1, meanScore: 3.5 });
		await expectTallyRight(t.db);
		// Re-votes: the newest row of a reviewer replaces their earlier one, an abstention drops its score.
		await cast(a, 0, { vote: 'abstain' });
		await cast(b, 0, scored(5, 5));
		await cast(a, 1, scored(1, 2));
		expect(await tallyFor(t.db, apps[0]!.id)).toEqual({ approve: 1, reject: 0, abstain: 2, meanScore: 5 });
		await expectTallyRight(t.db);
		// Plain SQL, as outside checks seed: several applications in one statement, an older row that is not
		// current, two rows of one reviewer in one statement (same time: the higher id wins), a score that
		// is not a number (ignored by vote_mean_score).
		await t.db
			.execute(sql`insert into application_votes (application_id, reviewer_address, vote, scores, created_at) values
			(${apps[1]!.id}, ${a.address}, 'reject', '{"fit": 5, "effort": 5}', now() - interval '1 day'),
			(${apps[2]!.id}, ${c.address}, 'approve', '{"fit": 3, "effort": "x"}', now()),
			(${apps[2]!.id}, ${b.address}, 'approve', '{"fit": 1}', now()),
			(${apps[2]!.id}, ${b.address}, 'reject', '{"fit": 2}', now()),
			(${apps[3]!.id}, ${a.address}, 'approve', '{}', now())`);
		const afterInsert = await expectTallyRight(t.db);
		expect(afterInsert.get(apps[1]!.id)).toMatchObject({ approve: 1, reject: 0, meanScore: 1.5 });
		expect(afterInsert.get(apps[2]!.id)).toMatchObject({
			approve: 1,
			reject: 1,
			current: 2,
			scored: 2,
			meanScore: 2.5
		});
		expect(afterInsert.get(apps[3]!.id)).toMatchObject({ approve: 1, current: 1, scored: 0, meanScore: null });
		// Never done by the portal (append-only), counted all the same: a changed row, a moved row, removed rows.
		await t.db.execute(
			sql`update application_votes set vote = 'approve' where application_id = ${apps[2]!.id} and vote = 'reject'`
		);
		await expectTallyRight(t.db);
		await t.db.execute(
			sql`update application_votes set application_id = ${apps[3]!.id} where application_id = ${apps[1]!.id} and vote = 'reject'`
		);
		await expectTallyRight(t.db);
		await t.db.execute(
			sql`delete from application_votes where application_id = ${apps[0]!.id} and reviewer_address = ${b.address}`
		);
		expect(await tallyFor(t.db, apps[0]!.id)).toEqual({ approve: 0, reject: 0, abstain: 2, meanScore: null });
		await expectTallyRight(t.db);
	});

	it('the migration’s backfill recounts every application from the votes already there', async () => {
		const app = await pending();
		await castVote(t.db, OUTBOX_OFF, await reviewer(), app.id, scored(3, 4));
		const before = await expectTallyRight(t.db);
		await t.db.execute(
			sql`update applications set votes_approve = 0, votes_reject = 0, votes_abstain = 0, votes_current = 0, votes_scored = 0, votes_mean_score = null`
		);
		expect((await kept(t.db)).get(app.id)).toMatchObject({ current: 0 });
		const migration = readFileSync('drizzle/0011_application_vote_tally.sql', 'utf8');
		const backfill = migration.slice(migration.indexOf('-- Backfill')).split('--> statement-breakpoint');
		for (const statement of backfill) await t.db.execute(sql.raw(statement));
		expect(Object.fromEntries(await kept(t.db))).toEqual(Object.fromEntries(before));
	});

	it('sort=score: highest mean first, none as 0, then longest waiting; the same order page by page both ways', async () => {
		const r = [await reviewer(), await reviewer()];
		// Ties on purpose: two applications at 4.5, several at 0 (no votes, or abstentions only).
		for (const [fit, effort] of [
			[5, 4],
			[4, 5],
			[1, 1],
			[3, 3],
			[2, 5]
		] as const)
			await castVote(t.db, OUTBOX_OFF, r[0]!, (await pending()).id, scored(fit, effort));
		const abstained = await pending();
		await castVote(t.db, OUTBOX_OFF, r[1]!, abstained.id, { vote: 'abstain' });
		await pending();
		for (const filter of ['', 'review=pending&']) {
			const tallies = await recount(t.db);
			const all = rowsOf<{ id: string; at: string; review: string }>(
				await t.db.execute(sql`select id::text as id, review::text as review,
					to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as at from applications`)
			).filter((a) => !filter || a.review === 'pending');
			const score = (id: string) => tallies.get(id)?.meanScore ?? 0;
			const expected = all
				.sort((x, y) => score(y.id) - score(x.id) || x.at.localeCompare(y.at) || x.id.localeCompare(y.id))
				.map((a) => a.id);
			expect(expected.length).toBeGreaterThan(8);
			const page = (params: string) =>
				reviewTable(t.db, parseTableQuery(new URLSearchParams(`${filter}sort=score${params}`)), 3, { quorum: 2 });
			const forward: string[] = [];
			let next: string | null = '';
			while (next !== null) {
				const p = await page(next ? `&after=${encodeURIComponent(next)}` : '');
				forward.push(...p.rows.map((row) => row.id));
				next = p.next;
			}
			expect(forward).toEqual(expected);
			const backward: string[] = [];
			let previous: string | null = 'end';
			while (previous !== null) {
				const p = await page(`&before=${encodeURIComponent(previous)}`);
				backward.unshift(...p.rows.map((row) => row.id));
				previous = p.previous;
			}
			expect(backward).toEqual(expected);
		}
	});

	it('TRUNCATE of the votes leaves every tally empty', async () => {
		await t.db.execute(sql`truncate application_votes`);
		const tallies = await expectTallyRight(t.db);
		expect([...tallies.values()].every((v) => v.current === 0 && v.meanScore === null)).toBe(true);
	});

	it.runIf(engine === 'postgres' && serverUrl)(
		'votes at the same moment on one application, through castVote or plain SQL, leave the tally right',
		async () => {
			const app = await pending();
			const five = await Promise.all(Array.from({ length: 5 }, () => reviewer()));
			const outcomes = await Promise.all(
				five.map((r, i) => castVote(t.db, OUTBOX_OFF, r, app.id, scored(1 + i, 5 - i)))
			);
			expect(outcomes.every((o) => o.ok)).toBe(true);
			expect(await tallyFor(t.db, app.id)).toEqual({ approve: 5, reject: 0, abstain: 0, meanScore: 3 });
			// Plain SQL takes no lock before it inserts: each transaction stays open after its insert so the
			// others' inserts and triggers overlap it; one reviewer twice among them.
			const other = await pending();
			const voters = [...five, five[0]!, five[1]!];
			await Promise.all(
				voters.map((r, i) =>
					t.db.transaction(async (tx) => {
						await tx.execute(sql`insert into application_votes (application_id, reviewer_address, vote, scores)
							values (${other.id}, ${r.address}, ${i % 3 === 0 ? 'reject' : 'approve'}, ${JSON.stringify({ fit: 1 + (i % 5) })}::jsonb)`);
						await tx.execute(sql`select pg_sleep(0.05)`);
					})
				)
			);
			const tallies = await expectTallyRight(t.db);
			expect(tallies.get(other.id)?.current).toBe(5);
		},
		60_000
	);
});

// What a page reads: the statements the review table sends, captured and run under EXPLAIN ANALYZE on
// 3,000 applications with three votes each. Before drizzle/0011 a score-sorted page computed the mean of
// every pending application and sorted them; a tab count under votes=ready counted each row's votes.
describe.runIf(serverUrl)('rows a score-sorted page and its counts read on Postgres', () => {
	let t: TestDatabase;
	let client: postgres.Sql;
	beforeAll(async () => {
		t = await createTestDatabase('postgres');
		client = postgres(t.url!, { max: 1, onnotice: () => {} });
		const address = `'0x' || left(encode(sha256(g::text::bytea), 'hex'), 40)`;
		await client.unsafe(`insert into members (address) select ${address} from generate_series(1, 3000) g`);
		await client.unsafe(`insert into applications (applicant_address, display_name, motivation, review, created_at)
			select ${address}, 'A' || g, 'Why', (array['pending','needs_info','approved','rejected'])[1 + g % 4]::review_state,
				now() - make_interval(mins => g) from generate_series(1, 3000) g`);
		await client.unsafe(`insert into application_votes (application_id, reviewer_address, vote, scores)
			select a.id, 'r' || k, (array['approve','reject','abstain'])[1 + (a.n + k) % 3],
				jsonb_build_object('fit', 1 + (a.n + k) % 5)
			from (select id, row_number() over (order by id) as n from applications) a cross join generate_series(1, 3) k`);
		await client.unsafe('vacuum analyze applications, application_votes');
	}, 120_000);
	afterAll(async () => {
		await client?.end();
		await t?.drop();
	});

	/** EXPLAIN ANALYZE of every statement `work` sends: the plans' top nodes. */
	async function plansOf(work: () => Promise<unknown>) {
		type Prepared = { execute: (values?: Record<string, unknown>) => Promise<unknown> };
		type Query = { sql: string; params: unknown[] };
		const session = (
			t.db as unknown as { _: { session: { prepareQuery: (q: Query, ...rest: unknown[]) => Prepared } } }
		)._.session;
		// Each statement as it ran: a statement built once holds placeholders, given their values when it runs.
		const queries: Query[] = [];
		const prepareQuery = session.prepareQuery.bind(session);
		const spy = vi.spyOn(session, 'prepareQuery').mockImplementation((q, ...rest) => {
			const prepared = prepareQuery(q, ...rest);
			const execute = prepared.execute.bind(prepared);
			prepared.execute = (values) => {
				queries.push({ sql: q.sql, params: fillPlaceholders(q.params, values ?? {}) });
				return execute(values);
			};
			return prepared;
		});
		await work();
		spy.mockRestore();
		const plans = [];
		for (const q of queries) {
			const [row] = await client.unsafe(`explain (analyze, buffers, format json) ${q.sql}`, q.params as never[]);
			plans.push((row as unknown as { 'QUERY PLAN': { Plan: Plan }[] })['QUERY PLAN'][0]!.Plan);
		}
		return plans;
	}
	/** The statement's own nodes, not those of a per-row subquery (the assigned reviewers' ordered array). */
	const ownNodes = (plan: Plan): Plan[] => [
		plan,
		...(plan.Plans ?? [])
			.filter(
				(n) => !['SubPlan', 'InitPlan'].includes((n as { 'Parent Relationship'?: string })['Parent Relationship'] ?? '')
			)
			.flatMap(ownNodes)
	];
	/** Rows read from applications or application_votes, over every scan of them. */
	const rowsRead = (plan: Plan) =>
		nodes(plan)
			.filter((n) => n['Relation Name'] === 'applications' || n['Relation Name'] === 'application_votes')
			.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);

	it('sort=score reads a page of rows from its index, first page and after a cursor, without sorting', async () => {
		const query = (params: string) => parseTableQuery(new URLSearchParams(`review=pending&sort=score${params}`));
		const first = await reviewTable(t.db, query(''), 50, { quorum: 2 });
		expect(first.next).not.toBeNull();
		for (const params of ['', `&after=${encodeURIComponent(first.next!)}`, '&before=end']) {
			const [, rows] = await plansOf(() => reviewTable(t.db, query(params), 50, { quorum: 2 })); // the counts, then the rows
			expect(ownNodes(rows!).some((n) => n['Node Type'] === 'Sort')).toBe(false);
			expect(nodes(rows!).map((n) => n['Index Name'])).toContain('applications_review_score_queue_idx');
			expect(rowsRead(rows!)).toBeLessThanOrEqual(51);
		}
	});

	it('votes=ready: the page and each capped tab count read at most COUNT_CAP + 1 index entries', async () => {
		const [counts, rows] = await plansOf(() =>
			reviewTable(t.db, parseTableQuery(new URLSearchParams('votes=ready')), 50, { quorum: 2 })
		);
		expect(rowsRead(rows!)).toBeLessThanOrEqual(51);
		// Five capped counts (all and each review state), each at most 1,001 rows, none reading votes.
		expect(rowsRead(counts!)).toBeLessThanOrEqual(5 * 1001);
		expect(nodes(counts!).some((n) => n['Relation Name'] === 'application_votes')).toBe(false);
	});
});
