// Programmes and rounds (issue 57) in the admins' and reviewers' pages: /admin?program=&round= filters
// the review table, the CSV takes the same query, /admin/insights draws one programme or round, and
// /review names each application's programme. The insights seed (tests/helpers/insights-seed.ts) with
// two of its applications moved into a second programme, "Builders", round "Cohort 1".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage } from '../helpers/forms';
import { SEEDED_REVIEWERS, VOTES_SQL, seededDatabase, tableRows, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

// Three (pending, a week ago) and Five (pending after needs_info 3 days in, three weeks ago) are Builders'.
const BUILDERS_SQL = `
insert into programs (slug, name) values ('builders', 'Builders');
insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() - interval '300 days' from programs where slug = 'builders';
update applications set program_id = (select id from programs where slug = 'builders'),
	round_id = (select r.id from rounds r join programs p on p.id = r.program_id where p.slug = 'builders')
	where id in ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000005');
select r.id from rounds r join programs p on p.id = r.program_id where p.slug = 'builders';
`;

/** A page's HTML without Svelte's hydration markers. */
const plain = (html: string) => html.replace(/<!--[\s\S]*?-->/g, '');

/** The review table's applicant cells: the name links of its rows. */
const names = (html: string) =>
	[...html.matchAll(/<th scope="row"><a href="\/admin\/applications\/[^"]+"><bdi>([^<]+)<\/bdi>/g)].map((m) => m[1]);

describe.each(engines)('programme and round filters on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	let cookie: string;
	let cohort: number;
	beforeAll(async () => {
		database = await seededDatabase(engine);
		await database.run(VOTES_SQL);
		const [row] = await database.run(BUILDERS_SQL);
		cohort = Number(row!.id);
		server = await startServer({
			env: { ...database.env, ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: member.address }
		});
		cookie = await signIn(server.url, admin);
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it('the review table shows one programme or one round, names each row\u2019s programme and round, and offers both filters', async () => {
		const all = await getPage(`${server.url}/admin`, cookie);
		expect(all.status).toBe(200);
		expect(names(all.body)).toHaveLength(7);
		expect(plain(all.body)).toMatch(/<select name="program">[\s\S]*<option value="builders"[^>]*>Builders<\/option>/);
		// The rounds are offered once a programme is chosen (one programme's, not every round of every one).
		expect(all.body).not.toContain('<select name="round">');
		expect(all.body).toContain('Builders · Cohort 1');

		const builders = await getPage(`${server.url}/admin?program=builders`, cookie);
		expect(names(builders.body).sort()).toEqual(['Five', 'Three']);
		expect(builders.body).toMatch(/<option value="builders" selected[^>]*>Builders/);
		expect(plain(builders.body)).toMatch(
			/<select name="round"><option value="">any<\/option><option value="\d+"[^>]*>Cohort 1<\/option><\/select>/
		);
		const round = await getPage(`${server.url}/admin?round=${cohort}`, cookie);
		expect(names(round.body).sort()).toEqual(['Five', 'Three']);
		const membership = await getPage(`${server.url}/admin?program=membership&review=pending`, cookie);
		expect(names(membership.body)).toEqual(['Seven']);
		// The tabs count within the programme.
		expect(plain(builders.body)).toMatch(/aria-current="page"[^>]*>All <span class="count[^"]*">2<\/span>/);
	});

	it('an unknown programme or round matches nothing; a malformed one is ignored, as every filter is', async () => {
		for (const query of ['program=grants', `round=${cohort + 1000}`, `program=membership&round=${cohort}`]) {
			const page = await getPage(`${server.url}/admin?${query}`, cookie);
			expect(page.status, query).toBe(200);
			expect(names(page.body), query).toEqual([]);
		}
		for (const query of ['program=Builders!', 'round=0', 'round=99999999999', 'round=1e3', 'program=%00']) {
			const page = await getPage(`${server.url}/admin?${query}`, cookie);
			expect(page.status, query).toBe(200);
			expect(names(page.body), query).toHaveLength(7);
		}
	});

	it('the CSV of a filtered table holds that programme’s applications, and the table links it with the filter', async () => {
		const table = await getPage(`${server.url}/admin?program=builders`, cookie);
		expect(table.body).toContain('href="/admin/applications.csv?program=builders"');
		const csv = await getPage(`${server.url}/admin/applications.csv?program=builders`, cookie);
		expect(csv.status).toBe(200);
		const lines = csv.body.trim().split(/\r?\n/);
		expect(lines).toHaveLength(3);
		expect(
			lines
				.slice(1)
				.map((l) => (/,"(Three|Five)",/.exec(l) ?? [])[1])
				.sort()
		).toEqual(['Five', 'Three']);
	});

	it('insights of one programme: its applications per week, funnel, waits and current votes; check-ins stay the portal’s', async () => {
		const page = await getPage(`${server.url}/admin/insights?program=builders`, cookie);
		expect(page.status).toBe(200);
		const weekly = tableRows(page.body, 'applications-per-week-table');
		// From Five's week (three weeks ago) to this one.
		expect(weekly).toHaveLength(4);
		expect(weekly.map((r) => r.slice(1).map(Number))).toEqual([
			[1, 0, 0, 0, 0],
			[0, 0, 0, 0, 0],
			[1, 0, 0, 0, 0],
			[0, 0, 0, 0, 0]
		]);
		expect(tableRows(page.body, 'funnel-table').map((r) => Number(r[1]))).toEqual([2, 0, 0, 0]);
		const waits = tableRows(page.body, 'time-to-decision-table');
		// Five's first decision (needs info) came after 3 days; Three waits.
		expect(waits[0]!.slice(1)).toEqual(['3', '3']);
		expect(waits[2]!.slice(1)).toEqual(['—', '—']);
		const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;
		expect(tableRows(page.body, 'votes-per-reviewer-table')).toEqual([
			[short(SEEDED_REVIEWERS[0]!), '1', '0', '1'],
			[short(SEEDED_REVIEWERS[1]!), '0', '1', '0']
		]);
		// Check-ins belong to members: the same 90 days as unfiltered, said under the chart.
		expect(
			tableRows(page.body, 'check-ins-per-day-table')
				.map((r) => Number(r[1]))
				.reduce((a, b) => a + b, 0)
		).toBe(6);
		expect(page.body).toContain('Check-ins count every member, whatever their programme.');

		const membership = await getPage(`${server.url}/admin/insights?program=membership`, cookie);
		expect(tableRows(membership.body, 'funnel-table').map((r) => Number(r[1]))).toEqual([5, 3, 2, 1]);
		expect(membership.body).not.toContain('votes-per-reviewer-table');
		const round = await getPage(`${server.url}/admin/insights?round=${cohort}`, cookie);
		expect(tableRows(round.body, 'funnel-table').map((r) => Number(r[1]))).toEqual([2, 0, 0, 0]);
	});

	it('the reviewer’s queue names each application’s programme', async () => {
		const page = await getPage(`${server.url}/review`, await signIn(server.url, member));
		expect(page.status).toBe(200);
		const body = plain(page.body);
		expect(body).toMatch(
			/<bdi>Three<\/bdi>[^<]*<\/a> <code[^>]*>[^<]*<\/code> <span class="program[^"]*"><bdi>Builders<\/bdi><\/span>/
		);
		expect(body).toMatch(
			/<bdi>Seven<\/bdi>[^<]*<\/a> <code[^>]*>[^<]*<\/code> <span class="program[^"]*"><bdi>Member portal<\/bdi><\/span>/
		);
	});
});
