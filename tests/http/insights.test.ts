// /admin/insights draws the numbers that SQL over a fixed seed gives, for admins only (hidden like
// /admin); the votes chart appears only once the portal's database has reviewer votes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage } from '../helpers/forms';
import { SEEDED_REVIEWERS, VOTES_SQL, seededDatabase, tableRows, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const numbers = (row: string[]) => row.slice(1).map(Number);

describe.each(engines)('/admin/insights on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	let adminCookie: string;
	beforeAll(async () => {
		database = await seededDatabase(engine);
		server = await startServer({ env: { ...database.env, ADMIN_ADDRESSES: admin.address } });
		adminCookie = await signIn(server.url, admin);
		// A PGlite folder is created, migrated and seeded first: slow on a loaded machine.
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it('applications per week by current review state, this week last, from the first week with one', async () => {
		const page = await getPage(`${server.url}/admin/insights`, adminCookie);
		expect(page.status).toBe(200);
		const rows = tableRows(page.body, 'applications-per-week-table');
		// The window is 26 weeks, but the first 22 have no application: the chart spans the 4 that do
		// (three weeks ago to this one), not six months of nothing (issue 61).
		expect(rows).toHaveLength(4);
		// Columns: pending, needs info, approved, rejected, withdrawn.
		expect(numbers(rows[3]!)).toEqual([1, 0, 0, 0, 0]);
		expect(numbers(rows[2]!)).toEqual([1, 0, 1, 1, 0]);
		expect(numbers(rows[0]!)).toEqual([1, 0, 1, 0, 0]);
		const total = rows.flatMap(numbers).reduce((a, b) => a + b, 0);
		expect(total).toBe(6);
		expect(page.body).toContain('6 applications submitted in the last 26 weeks');
	});

	it('the funnel counts every application ever submitted and each later step', async () => {
		const page = await getPage(`${server.url}/admin/insights`, adminCookie);
		const rows = tableRows(page.body, 'funnel-table');
		expect(rows.map((r) => [r[0], Number(r[1])])).toEqual([
			['Submitted', 7],
			['Approved', 3],
			['Allowlist added', 2],
			['Token sent', 1]
		]);
		expect(rows[1]![2]).toBe('42.9%');
	});

	it('time to first decision: median and 90th percentile in days by week of submission; resubmission is not a decision', async () => {
		const page = await getPage(`${server.url}/admin/insights`, adminCookie);
		const rows = tableRows(page.body, 'time-to-decision-table');
		// The same weeks as the applications' chart: from the first with an application.
		expect(rows).toHaveLength(4);
		// A week ago: decided after 2 and 4 days (median 3, p90 3.8); three weeks ago: 1 and 3 days (2, 2.8).
		expect(rows[2]!.slice(1)).toEqual(['3', '3.8']);
		expect(rows[0]!.slice(1)).toEqual(['2', '2.8']);
		expect(rows[3]!.slice(1)).toEqual(['—', '—']);
		expect(page.body).toContain('Still waiting for a first decision: 2 of the applications in these weeks.');
	});

	it('check-ins per day for 90 days with distinct members; older ones are left out', async () => {
		const page = await getPage(`${server.url}/admin/insights`, adminCookie);
		const rows = tableRows(page.body, 'check-ins-per-day-table');
		expect(rows).toHaveLength(90);
		expect(numbers(rows[89]!)).toEqual([3, 2]);
		expect(numbers(rows[88]!)).toEqual([1, 1]);
		expect(numbers(rows[0]!)).toEqual([2, 1]);
		expect(rows.map((r) => Number(r[1])).reduce((a, b) => a + b, 0)).toBe(6);
	});

	it('each chart is an SVG image with a title and a text alternative, and the admin header links here', async () => {
		const page = await getPage(`${server.url}/admin/insights`, adminCookie);
		const charts = [...page.body.matchAll(/<svg[^>]*role="img"[^>]*aria-labelledby="([^"]+)"/g)];
		expect(charts).toHaveLength(4);
		for (const [, ids] of charts) {
			for (const part of ids!.split(' ')) expect(page.body).toMatch(new RegExp(`id="${part}">[^<]+<`));
		}
		expect(page.body).toContain('href="/admin/insights" aria-current="page"');
		const table = await getPage(`${server.url}/admin`, adminCookie);
		expect(table.body).toContain('href="/admin/insights"');
	});

	it('is hidden like /admin: a visitor and a member get the unknown-path 404, page and data alike', async () => {
		const memberCookie = await signIn(server.url, member);
		for (const cookie of [undefined, memberCookie]) {
			// The caller's own unknown path: the header draws who is signed in.
			const unknown = await getPage(`${server.url}/nope/insights`, cookie);
			for (const path of ['/admin/insights', '/admin/insights/__data.json']) {
				const page = await getPage(`${server.url}${path}`, cookie);
				expect(page.status).toBe(404);
				expect(page.body.replace(/nonce="[^"]+"/g, '')).toBe(unknown.body.replace(/nonce="[^"]+"/g, ''));
			}
		}
	});

	it('shows votes per reviewer (current votes only) once the database has reviewer votes, and not before', async () => {
		const before = await getPage(`${server.url}/admin/insights`, adminCookie);
		expect(before.body).not.toContain('votes-per-reviewer');
		await server.stop();
		await database.run(VOTES_SQL);
		// The first reviewer once applied too: the chart names them as the admin's pages do (issue 61).
		await database.run(
			`insert into members (address) values ('${SEEDED_REVIEWERS[0]}') on conflict do nothing;
			insert into applications (id, applicant_address, display_name, motivation, review, allowlist, distribution, created_at)
			 values ('00000000-0000-4000-8000-0000000000a1', '${SEEDED_REVIEWERS[0]}', 'Rita Reviewer', 'm', 'approved', 'pending', 'pending', now() - interval '400 days')`
		);
		server = await startServer({ env: { ...database.env, ADMIN_ADDRESSES: admin.address }, port: server.port });
		adminCookie = await signIn(server.url, admin);
		const page = await getPage(`${server.url}/admin/insights`, adminCookie);
		const rows = tableRows(page.body, 'votes-per-reviewer-table');
		const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;
		// Columns: approve, reject, abstain. The first reviewer's older reject was replaced by an approve.
		expect(rows).toEqual([
			[`Rita Reviewer (${short(SEEDED_REVIEWERS[0]!)})`, '1', '0', '1'],
			[short(SEEDED_REVIEWERS[1]!), '0', '1', '0']
		]);
		expect(page.body).toContain(`the most active, Rita Reviewer (${short(SEEDED_REVIEWERS[0]!)}), holds`);
	}, 120_000);

	it('counts withdrawn applications as their own state, not as pending, in the chart, its table and its words', async () => {
		await server.stop();
		const withdrawer = `0x${'b1'.padStart(40, '0')}`;
		await database.run(
			`insert into members (address) values ('${withdrawer}') on conflict do nothing;
			insert into applications (id, applicant_address, display_name, motivation, review, allowlist, distribution, created_at)
			 values ('00000000-0000-4000-8000-0000000000b1', '${withdrawer}', 'Wanda', 'm', 'withdrawn', 'pending', 'pending', now())`
		);
		server = await startServer({ env: { ...database.env, ADMIN_ADDRESSES: admin.address }, port: server.port });
		adminCookie = await signIn(server.url, admin);
		for (const query of ['', '?program=membership']) {
			const page = await getPage(`${server.url}/admin/insights${query}`, adminCookie);
			const rows = tableRows(page.body, 'applications-per-week-table');
			// This week: the pending one as before, and the withdrawn one in its own column.
			expect(numbers(rows.at(-1)!)).toEqual([1, 0, 0, 0, 1]);
			expect(page.body).toContain('>Withdrawn<');
			expect(page.body).toContain('7 applications submitted in the last 26 weeks');
			expect(page.body).toContain('1 rejected, 1 withdrawn.');
		}
	}, 120_000);
});
