import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/lib/server/db/rows';
import {
	RATE_LIMITS,
	consume,
	consumeCost,
	consumeRateLimit,
	deleteExpiredWindows,
	type RateLimitResult
} from '../../src/lib/server/platform/rate-limit';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';

const alice = '0x' + 'a'.repeat(40);
const bob = '0x' + 'b'.repeat(40);
const rule = (limit: number, windowSeconds: number) => ({ limit, windowSeconds, counts: 'calls' });
/** Where the subject stands, whether the call was allowed or refused. */
const countOf = (r: RateLimitResult) => (r.ok ? r.value : r);

describe.each(engines)('consume_rate_limit on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('the limit holds exactly: calls 1..limit are allowed, every later one refused', async () => {
		const results = [];
		for (let i = 0; i < 8; i++) results.push(await consumeRateLimit(t.db, alice, 'exact', rule(5, 3600)));
		expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, false, false, false]);
		expect(results.map((r) => countOf(r).used)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		expect(results[5]).toMatchObject({ code: 'rate_limited', message: 'You have reached the limit of 5 calls.' });
		// The window does not move while refused calls are counted.
		expect(new Set(results.map((r) => countOf(r).resetAt.getTime())).size).toBe(1);
		expect(countOf(results[0]!).resetAt.getTime()).toBeGreaterThan(Date.now() + 3500_000);
	});

	it('a new window starts after the old one ends, on the database clock', async () => {
		const first = await consumeRateLimit(t.db, alice, 'short', rule(1, 0.4));
		const second = await consumeRateLimit(t.db, alice, 'short', rule(1, 0.4));
		expect([first.ok, second.ok]).toEqual([true, false]);
		await new Promise((r) => setTimeout(r, 500));
		const third = await consumeRateLimit(t.db, alice, 'short', rule(1, 0.4));
		expect(third).toMatchObject({ ok: true, value: { used: 1 } });
		expect(countOf(third).resetAt.getTime()).toBeGreaterThan(countOf(first).resetAt.getTime());
	});

	it("one address's or action's counter never affects another", async () => {
		for (let i = 0; i < 3; i++) await consumeRateLimit(t.db, alice, 'isolated-a', rule(3, 3600));
		expect((await consumeRateLimit(t.db, alice, 'isolated-a', rule(3, 3600))).ok).toBe(false);
		expect(await consumeRateLimit(t.db, bob, 'isolated-a', rule(3, 3600))).toMatchObject({
			ok: true,
			value: { used: 1 }
		});
		expect(await consumeRateLimit(t.db, alice, 'isolated-b', rule(3, 3600))).toMatchObject({
			ok: true,
			value: { used: 1 }
		});
	});

	it('consume() applies the per-address limits table, keyed by the lowercase address', async () => {
		// What each limit counts is said in the request's language (English outside a page's request).
		const said = Object.fromEntries(
			Object.entries(RATE_LIMITS).map(([name, { counts, ...rule }]) => [
				name,
				{ ...rule, counts: typeof counts === 'string' ? counts : counts() }
			])
		);
		expect(said).toEqual({
			submitApplication: { limit: 5, windowSeconds: 86_400, counts: 'applications in 24 hours' },
			checkin: { limit: 20, windowSeconds: 86_400, counts: 'check-ins in 24 hours' },
			transitionApplication: { limit: 120, windowSeconds: 3_600, counts: 'state changes in an hour' },
			vote: { limit: 240, windowSeconds: 3_600, counts: 'votes in an hour' },
			email: { limit: 5, windowSeconds: 86_400, counts: 'verification e-mails in 24 hours' },
			// The applicant's own application (issue 58).
			saveDraft: { limit: 600, windowSeconds: 3_600, counts: 'draft saves in an hour' },
			editApplication: { limit: 20, windowSeconds: 86_400, counts: 'edits in 24 hours' },
			withdrawApplication: { limit: 5, windowSeconds: 86_400, counts: 'withdrawals in 24 hours' },
			// The team (issue 59): adding and removing on /admin/team and /admin/reviewers.
			teamChange: { limit: 120, windowSeconds: 3_600, counts: 'changes of the team in an hour' },
			settingsChange: { limit: 60, windowSeconds: 3_600, counts: 'saves of the look in an hour' }
		});
		const mixed = '0x' + 'C'.repeat(40);
		const results = [];
		for (let i = 0; i < 6; i++)
			results.push(await consume(t.db, i % 2 ? mixed : mixed.toLowerCase(), 'submitApplication'));
		expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, false]);
		expect(results[5]).toMatchObject({
			used: 6,
			limit: 5,
			message: 'You have reached the limit of 5 applications in 24 hours.'
		});
		const span = countOf(results[0]!).resetAt.getTime() - Date.now();
		expect(span).toBeGreaterThan(86_000_000);
		expect(span).toBeLessThanOrEqual(86_400_000 + 5_000);
	});

	it("consumeCost spends a bulk's cost at once; one that does not fit is refused and spends nothing", async () => {
		const carol = '0x' + 'c'.repeat(40);
		expect(await consumeCost(t.db, carol, 'transitionApplication', 30)).toMatchObject({
			ok: true,
			value: { used: 30 }
		});
		const refused = await consumeCost(t.db, carol, 'transitionApplication', 91);
		expect(refused).toMatchObject({ ok: false, code: 'rate_limited', used: 30, limit: 120 });
		expect(countOf(refused).resetAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
		expect(await consumeCost(t.db, carol, 'transitionApplication', 90)).toMatchObject({
			ok: true,
			value: { used: 120 }
		});
		// Every call is now refused, and a refused single call still counts (decision 0013).
		expect(await consume(t.db, carol, 'transitionApplication')).toMatchObject({ ok: false, used: 121 });
		expect(await consumeCost(t.db, carol, 'transitionApplication', 1)).toMatchObject({ ok: false, used: 121 });
	});

	it('old windows are cleaned up', async () => {
		await consumeRateLimit(t.db, bob, 'to-clean', rule(5, 0.1));
		await consumeRateLimit(t.db, bob, 'to-keep', rule(5, 3600));
		await new Promise((r) => setTimeout(r, 200));
		expect(await deleteExpiredWindows(t.db)).toBeGreaterThanOrEqual(1);
		const left = rowsOf<{ action: string }>(
			await t.db.execute(sql`select action from rate_limit_counters where subject = ${bob}`)
		).map((r) => r.action);
		expect(left).toContain('to-keep');
		expect(left).not.toContain('to-clean');
	});
});

describe.runIf(serverUrl)('consume_rate_limit concurrency on the Postgres server', () => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase('postgres', { max: 25 });
	});
	afterAll(() => t?.drop());

	it('200 concurrent calls for one address over 20+ connections with limit 5 allow exactly 5', async () => {
		// Hold 25 connections open at once so the calls really run in parallel.
		const results = await Promise.all(
			Array.from({ length: 200 }, () => consumeRateLimit(t.db, alice, 'concurrent', rule(5, 3600)))
		);
		expect(results.filter((r) => r.ok)).toHaveLength(5);
		expect(results.map((r) => countOf(r).used).sort((a, b) => a - b)).toEqual(
			Array.from({ length: 200 }, (_, i) => i + 1)
		);
		const backends = rowsOf<{ n: number }>(
			await t.db.execute(sql`select count(*)::int as n from pg_stat_activity where datname = current_database()`)
		)[0]!.n;
		expect(backends).toBeGreaterThanOrEqual(20);
	});

	it('concurrent bulks of 30 for one address never pass 120 together, and the refused ones spend nothing', async () => {
		const results = await Promise.all(
			Array.from({ length: 12 }, () => consumeCost(t.db, bob, 'transitionApplication', 30))
		);
		expect(results.filter((r) => r.ok)).toHaveLength(4);
		expect(
			results
				.filter((r) => r.ok)
				.map((r) => countOf(r).used)
				.sort((a, b) => a - b)
		).toEqual([30, 60, 90, 120]);
		const [row] = rowsOf<{ count: number }>(
			await t.db.execute(
				sql`select count from rate_limit_counters where subject = ${bob} and action = 'transitionApplication'`
			)
		);
		expect(row?.count).toBe(120);
	});
});
