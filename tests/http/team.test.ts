// The team (issue 59) through real HTTP on the built server, without JavaScript: /admin/team's rules,
// bad input (each 400 names its field, nothing written), a change on the next request without signing in
// again, programme scope, and the team_events rows. The insights seed with two of its applications
// (Three and Five) moved into a second programme, "Builders".
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const newAccount = () => privateKeyToAccount(generatePrivateKey());
const lower = (a: PrivateKeyAccount) => a.address.toLowerCase();
const app = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

// Builders' admin and reviewer, and a reviewer of every programme, written by SQL as outside checks do
// (the reviewer through decision 0040's `reviewers`, now a view of the team).
const buildersAdmin = newAccount();
const buildersReviewer = newAccount();
const sqlReviewer = newAccount();
const seedSql = () => `
insert into programs (slug, name) values ('builders', 'Builders');
insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() - interval '300 days' from programs where slug = 'builders';
update applications set program_id = (select id from programs where slug = 'builders'),
	round_id = (select r.id from rounds r join programs p on p.id = r.program_id where p.slug = 'builders')
	where id in ('${app(3)}', '${app(5)}');
insert into team_members (address, role, program_id, added_by)
	select '${lower(buildersAdmin)}', 'admin', id, 'sql' from programs where slug = 'builders';
insert into team_members (address, role, program_id, added_by)
	select '${lower(buildersReviewer)}', 'reviewer', id, 'sql' from programs where slug = 'builders';
insert into reviewers (address, added_by) values ('${lower(sqlReviewer)}', 'sql');
-- Builders' reviewer voted on Two (the membership's) and was assigned Seven (the membership's) and Five
-- (Builders'), as when they reviewed every programme before.
insert into application_votes (application_id, reviewer_address, vote) values ('${app(2)}', '${lower(buildersReviewer)}', 'approve');
-- A reviewer of every programme voted on Two too.
insert into application_votes (application_id, reviewer_address, vote) values ('${app(2)}', '${lower(sqlReviewer)}', 'abstain');
insert into review_assignments (application_id, reviewer_address, assigned_by) values
	('${app(7)}', '${lower(buildersReviewer)}', 'auto'), ('${app(5)}', '${lower(buildersReviewer)}', 'auto');
`;

/** The review table's applicant names. */
const names = (html: string) =>
	[...html.matchAll(/<th scope="row"><a href="\/admin\/applications\/[^"]+"><bdi>([^<]+)<\/bdi>/g)]
		.map((m) => m[1])
		.sort();

describe.each(engines)('the team on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	let owner: string;
	const post = (path: string, fields: Record<string, string | string[]>, cookie = owner) =>
		postForm(`${server.url}${path}`, fields, { cookie });
	beforeAll(async () => {
		database = await seededDatabase(engine);
		await database.run(seedSql());
		server = await startServer({
			env: { ...database.env, ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: member.address }
		});
		owner = await signIn(server.url, admin);
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it('lists owners from configuration, admins and reviewers with their programme; hidden from everyone else', async () => {
		const page = await getPage(`${server.url}/admin/team`, owner);
		expect(page.status).toBe(200);
		const text = textOf(page.body);
		for (const a of [admin, member, buildersAdmin, buildersReviewer, sqlReviewer]) expect(text).toContain(lower(a));
		expect(text).toContain('From configuration');
		expect(text).toContain('Builders');
		expect(text).toContain('Every programme');
		// Configured owners and reviewers have no Remove button; the others do.
		expect(page.body).not.toContain(`aria-label="Remove ${lower(admin)} as Owner"`);
		expect(page.body).not.toContain(`aria-label="Remove ${lower(member)} as Reviewer"`);
		expect(page.body).toContain(`aria-label="Remove ${lower(sqlReviewer)} as Reviewer"`);
		// A reviewer or a member: the unknown path's 404, for the page and its actions.
		const reviewer = await signIn(server.url, member);
		expect((await getPage(`${server.url}/admin/team`, reviewer)).status).toBe(404);
		expect((await getPage(`${server.url}/admin/team`)).status).toBe(404);
		expect((await post('/admin/team?/add', { address: lower(newAccount()), role: 'reviewer' }, reviewer)).status).toBe(
			404
		);
	});

	it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
		const who = lower(newAccount());
		const cases: [Record<string, string>, string, string][] = [
			[{ address: 'nope', role: 'admin' }, 'address', 'Enter a wallet address'],
			[{ address: 'vitalik.eth', role: 'admin' }, 'address', 'ENS names are not looked up on this portal'],
			[{ address: `${who}0`, role: 'reviewer' }, 'address', 'Enter a wallet address'],
			[{ address: who, role: 'king' }, 'role', 'Choose a role'],
			[{ address: who }, 'role', 'Choose a role'],
			[{ address: who, role: 'reviewer', program: 'grants' }, 'program', 'No programme has this name'],
			[{ address: who, role: 'owner', program: 'builders' }, 'program', 'leave the programme empty']
		];
		for (const [fields, field, words] of cases)
			for (const action of ['add', 'remove']) {
				const answer = await post(`/admin/team?/${action}`, fields);
				expect(answer.status, `${action} ${JSON.stringify(fields)}`).toBe(400);
				// A name is looked up when adding only: removing takes the address the team lists.
				const expected = action === 'remove' && fields.address === 'vitalik.eth' ? 'Enter a wallet address' : words;
				expect(textOf(answer.body), field).toContain(expected);
			}
		expect(textOf((await getPage(`${server.url}/admin/team`, owner)).body)).not.toContain(who);
	});

	it('an added admin’s next request is an admin’s; removed, the next is the 404; an admin adds reviewers only', async () => {
		const added = newAccount();
		const cookie = await signIn(server.url, added);
		expect((await getPage(`${server.url}/admin`, cookie)).status).toBe(404);
		expect((await post('/admin/team?/add', { address: added.address, role: 'admin' })).status).toBe(303);
		// Adding again changes nothing.
		const again = await post('/admin/team?/add', { address: added.address, role: 'admin' });
		expect(again.status).toBe(303);
		expect(again.headers.get('location')).toContain('done=unchanged');
		expect((await getPage(`${server.url}/admin`, cookie)).status).toBe(200);
		expect((await getPage(`${server.url}/admin/team`, cookie)).status).toBe(200);
		// An admin cannot add owners or admins, nor remove them.
		const other = lower(newAccount());
		expect((await post('/admin/team?/add', { address: other, role: 'admin' }, cookie)).status).toBe(403);
		expect((await post('/admin/team?/add', { address: other, role: 'owner' }, cookie)).status).toBe(403);
		expect(
			(await post('/admin/team?/remove', { address: lower(buildersAdmin), role: 'admin', program: 'builders' }, cookie))
				.status
		).toBe(403);
		// … but reviewers, of every programme or of one.
		expect((await post('/admin/team?/add', { address: other, role: 'reviewer' }, cookie)).status).toBe(303);
		const reviewerCookie = await signIn(server.url, privateKeyToAccount(generatePrivateKey()));
		expect((await getPage(`${server.url}/review`, reviewerCookie)).status).toBe(404);
		expect((await post('/admin/team?/remove', { address: other, role: 'reviewer' }, cookie)).status).toBe(303);
		expect((await post('/admin/team?/remove', { address: other, role: 'reviewer' }, cookie)).status).toBe(404);
		// The owner removes the admin: their next request is the unknown path's 404, without signing out.
		expect((await post('/admin/team?/remove', { address: added.address, role: 'admin' })).status).toBe(303);
		expect((await getPage(`${server.url}/admin`, cookie)).status).toBe(404);
		expect((await post('/admin/team?/add', { address: other, role: 'reviewer' }, cookie)).status).toBe(404);
		// The recent changes name who did what.
		const text = textOf((await getPage(`${server.url}/admin/team`, owner)).body);
		expect(text).toContain('Recent changes');
		expect(text).toContain(lower(added).slice(0, 6));
	});

	it('a reviewer added by SQL through `reviewers` reviews; the configured owner and reviewer cannot be removed', async () => {
		const cookie = await signIn(server.url, sqlReviewer);
		expect((await getPage(`${server.url}/review`, cookie)).status).toBe(200);
		expect((await post('/admin/team?/remove', { address: admin.address, role: 'owner' })).status).toBe(409);
		expect((await post('/admin/team?/remove', { address: member.address, role: 'reviewer' })).status).toBe(409);
		// A team owner besides the configured one can be added and removed (the configured owner remains).
		const second = newAccount();
		expect((await post('/admin/team?/add', { address: second.address, role: 'owner' })).status).toBe(303);
		const secondCookie = await signIn(server.url, second);
		expect((await getPage(`${server.url}/admin/programs`, secondCookie)).status).toBe(200);
		expect((await post('/admin/team?/remove', { address: second.address, role: 'owner' })).status).toBe(303);
		expect((await getPage(`${server.url}/admin/programs`, secondCookie)).status).toBe(404);
	});

	it('an admin of one programme sees and acts on that programme’s applications only', async () => {
		const cookie = await signIn(server.url, buildersAdmin);
		const table = await getPage(`${server.url}/admin`, cookie);
		expect(table.status).toBe(200);
		expect(names(table.body)).toEqual(['Five', 'Three']);
		expect((await getPage(`${server.url}/admin?program=membership`, cookie)).status).toBe(200);
		expect(names((await getPage(`${server.url}/admin?program=membership`, cookie)).body)).toEqual([]);
		expect((await getPage(`${server.url}/admin/applications/${app(3)}`, cookie)).status).toBe(200);
		expect((await getPage(`${server.url}/admin/applications/${app(1)}`, cookie)).status).toBe(404);
		const csv = await getPage(`${server.url}/admin/applications.csv`, cookie);
		expect(csv.status).toBe(200);
		expect(csv.body).toContain(app(3));
		expect(csv.body).not.toContain(app(1));
		// Actions on another programme's application: 404, nothing moved.
		const move = { applicationId: app(7), field: 'review', to: 'needs_info', reason: 'More please' };
		expect((await post('/admin?/transition', move, cookie)).status).toBe(404);
		expect((await post(`/admin/applications/${app(7)}?/note`, { body: 'hello' }, cookie)).status).toBe(404);
		expect(
			(
				await post(
					'/admin?/bulk',
					{ applicationIds: [app(3), app(7)], field: 'review', to: 'needs_info', reason: 'More please' },
					cookie
				)
			).status
		).toBe(404);
		// The community-wide pages are not theirs, and their sections show only what they may open.
		const wholePaths = ['/admin/programs', '/admin/form', '/admin/reviewers', '/admin/webhooks', '/admin/messages'];
		for (const path of [...wholePaths, '/admin/allowlist.csv'])
			expect((await getPage(`${server.url}${path}`, cookie)).status, path).toBe(404);
		const links = (html: string) => [...html.matchAll(/href="(\/admin[^"?#]*)"/g)].map((m) => m[1]);
		for (const page of ['/admin', '/admin/team', '/admin/insights']) {
			const shown = links((await getPage(`${server.url}${page}`, cookie)).body);
			expect(shown, page).toEqual(expect.arrayContaining(['/admin', '/admin/insights', '/admin/team']));
			for (const path of [...wholePaths, '/admin/allowlist.csv'])
				expect(shown, `${page} → ${path}`).not.toContain(path);
		}
		expect(links((await getPage(`${server.url}/admin`, owner)).body)).toEqual(
			expect.arrayContaining([...wholePaths, '/admin/allowlist.csv'])
		);
		// Their programme's insights (the reviewer's vote on Two is the membership's), never another's.
		const short = lower(buildersReviewer).slice(0, 6);
		expect(textOf((await getPage(`${server.url}/admin/insights`, owner)).body)).toContain(short);
		const insights = await getPage(`${server.url}/admin/insights`, cookie);
		expect(insights.status).toBe(200);
		expect(textOf(insights.body)).not.toContain(short);
		expect((await getPage(`${server.url}/admin/insights?program=builders`, cookie)).status).toBe(200);
		expect((await getPage(`${server.url}/admin/insights?program=membership`, cookie)).status).toBe(404);
		// Writing to applicants: their programme's only (Three and Five), another's id is the 404.
		const note = { subject: 'News', body: 'Hello' };
		expect(textOf((await post('/admin?/message', note, cookie)).body)).toContain('Applicants who will be told: 2.');
		expect((await post('/admin?/message', { ...note, applicationIds: [app(3), app(7)] }, cookie)).status).toBe(404);
		// They add reviewers of their programme only.
		const other = lower(newAccount());
		expect((await post('/admin/team?/add', { address: other, role: 'reviewer' }, cookie)).status).toBe(404);
		expect(
			(await post('/admin/team?/add', { address: other, role: 'reviewer', program: 'membership' }, cookie)).status
		).toBe(404);
		expect(
			(await post('/admin/team?/add', { address: other, role: 'reviewer', program: 'builders' }, cookie)).status
		).toBe(303);
		// A reviewer of one programme: its applications only.
		const reviewer = await signIn(server.url, buildersReviewer);
		expect((await getPage(`${server.url}/review/${app(3)}`, reviewer)).status).toBe(200);
		expect((await getPage(`${server.url}/review/${app(7)}`, reviewer)).status).toBe(404);
		expect((await post(`/review/${app(7)}?/vote`, { vote: 'abstain' }, reviewer)).status).toBe(404);
		const queue = await getPage(`${server.url}/review`, reviewer);
		expect(queue.status).toBe(200);
		expect(queue.body).not.toContain(app(7));
		// "Assigned to you" and the voted tab: their programme's only.
		expect(queue.body).toContain(app(5));
		const voted = await getPage(`${server.url}/review?tab=voted`, reviewer);
		expect(voted.status).toBe(200);
		expect(voted.body).not.toContain(app(2));
	});

	it('a reviewer of one programme can be assigned its applications by hand, never another programme’s', async () => {
		const reviewer = lower(buildersReviewer);
		// What the application's page lists as assigned (read through the portal: PGlite's folder is the server's while it runs).
		const assigned = async (id: string) =>
			(await getPage(`${server.url}/admin/applications/${id}`, owner)).body.includes(
				`aria-label="Unassign ${reviewer}"`
			)
				? 1
				: 0;
		// Offered on Builders' application (Three), not on the membership's (One).
		const three = await getPage(`${server.url}/admin/applications/${app(3)}`, owner);
		expect(three.body).toContain(`<option value="${reviewer}">`);
		const one = await getPage(`${server.url}/admin/applications/${app(1)}`, owner);
		expect(one.body).not.toContain(`<option value="${reviewer}">`);
		// Another programme's application: refused naming the field, nothing written.
		const refused = await post(`/admin/applications/${app(1)}?/assign`, { reviewer });
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toContain('This address is not a reviewer of this programme.');
		// The same refusal on the Spanish page, in Spanish (issue 61).
		const refusedEs = await post(`/es/admin/applications/${app(1)}?/assign`, { reviewer });
		expect(refusedEs.status).toBe(400);
		expect(textOf(refusedEs.body)).toContain('Esta dirección no es revisora de este programa.');
		expect(Number(await assigned(app(1)))).toBe(0);
		// Their own programme's, by the owner and by Builders' admin.
		expect((await post(`/admin/applications/${app(3)}?/assign`, { reviewer })).status).toBe(303);
		expect(Number(await assigned(app(3)))).toBe(1);
		const buildersCookie = await signIn(server.url, buildersAdmin);
		await post(`/admin/applications/${app(3)}?/unassign`, { reviewer }, buildersCookie);
		expect(Number(await assigned(app(3)))).toBe(0);
		expect((await post(`/admin/applications/${app(3)}?/assign`, { reviewer }, buildersCookie)).status).toBe(303);
		expect(Number(await assigned(app(3)))).toBe(1);
	});

	it('a vote stays when its reviewer may no longer review the application, marked as such', async () => {
		// Builders' reviewer voted on Two (the membership's) when they reviewed every programme.
		const two = await getPage(`${server.url}/admin/applications/${app(2)}`, owner);
		expect(two.status).toBe(200);
		const votes = textOf(two.body.slice(two.body.indexOf('id="votes"')));
		expect(votes).toContain(lower(buildersReviewer).slice(0, 6));
		expect(votes).toContain('no longer a reviewer here');
		// A reviewer of every programme's vote on it (seeded, decided already): not marked.
		expect(votes).toContain(lower(sqlReviewer).slice(0, 6));
		expect(votes.match(/no longer a reviewer here/g)).toHaveLength(1);
	});

	it('every change is one team_events row: who, what, whom, role, programme, when', async () => {
		await server.stop();
		const rows = await database.run(
			`select e.actor, e.action, e.address, e.role, p.slug, e.created_at is not null as dated
			from team_events e left join programs p on p.id = e.program_id order by e.id`
		);
		const owner = lower(admin);
		// No event for the SQL seed nor for the refused or unchanged posts.
		expect(rows.map((r) => [r.actor, r.action, r.role, r.slug ?? null, r.dated])).toEqual([
			[owner, 'add', 'admin', null, true],
			[expect.any(String), 'add', 'reviewer', null, true],
			[expect.any(String), 'remove', 'reviewer', null, true],
			[owner, 'remove', 'admin', null, true],
			[owner, 'add', 'owner', null, true],
			[owner, 'remove', 'owner', null, true],
			[lower(buildersAdmin), 'add', 'reviewer', 'builders', true]
		]);
		const [left] = await database.run(`select count(*)::int as n from team_members where role = 'admin'`);
		expect(Number(left!.n)).toBe(1);
	});
});
