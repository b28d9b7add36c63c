import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { getPage, postForm, textOf, type PageAnswer } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn } from '../helpers/siwe';

// /admin/programs (issue 57, docs/application-form.md "Programmes and rounds") through real HTTP on the built
// server without JavaScript: every action, every refusal (a 400 naming the field, or a 409 for an archive
// that live applications stop) and that a refusal writes nothing: the page lists every programme and
// every round, so its list before and after a refusal is compared, and the rows are read once at the end.
// COMMUNITY_TIME_ZONE is Europe/Berlin, so a wall-clock time is read there and a skipped hour exists.
// PGlite, or the Postgres server when TEST_DATABASE_URL is set.

let portal: OwnDatabasePortal;
let base: string;
let adminCookie: string;
let memberCookie: string;

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address, COMMUNITY_TIME_ZONE: 'Europe/Berlin' });
	base = portal.url;
	adminCookie = await signIn(base, admin);
	memberCookie = await signIn(base, member);
}, 240_000);
afterAll(() => portal?.stop(), 60_000);

const SLOW = 300_000;

const post = (action: string, fields: Record<string, string | string[]>, cookie = adminCookie) =>
	postForm(`${base}/admin/programs?/${action}`, fields, { cookie });

/** The page's list of programmes and rounds, as text (what a refusal must leave as it was). */
const listed = async () => {
	const page = await getPage(`${base}/admin/programs`, adminCookie);
	expect(page.status).toBe(200);
	const text = textOf(page.body);
	return text.slice(text.indexOf('Programmes ('), text.indexOf('Add a programme'));
};

/** The message of each refused field on a refused page, by the field's element. */
const fieldError = (page: PageAnswer, id: string) => {
	const match = new RegExp(`<p class="error[^"]*" id="${id}-error"[^>]*>([\\s\\S]*?)</p>`).exec(page.body);
	return match ? textOf(match[1]!).trim() : null;
};

async function refused(
	action: string,
	fields: Record<string, string | string[]>,
	status: number,
	expectText: string | RegExp
) {
	const before = await listed();
	const answer = await post(action, fields);
	expect(answer.status, `${action} ${JSON.stringify(fields)}`).toBe(status);
	if (typeof expectText === 'string') expect(textOf(answer.body)).toContain(expectText);
	else expect(textOf(answer.body)).toMatch(expectText);
	expect(await listed()).toBe(before);
	return answer;
}

const ROUND = {
	program: 'builders',
	name: 'Cohort 1',
	opensAt: '2027-03-01T09:00',
	closesAt: '2027-03-31T18:00',
	releaseMode: 'immediate'
};

describe('/admin/programs', () => {
	it('is hidden: a member and a visitor get exactly the unknown path, for the page and each action', async () => {
		for (const cookie of [memberCookie, undefined]) {
			// The caller's own unknown path: the header draws who is signed in.
			const unknown = await getPage(`${base}/no-such-page`, cookie);
			const page = await getPage(`${base}/admin/programs`, cookie);
			expect(page.status).toBe(404);
			expect(page.body.replace(/nonce="[^"]+"/g, '')).toBe(unknown.body.replace(/nonce="[^"]+"/g, ''));
			for (const action of ['save', 'archive', 'round'])
				expect(
					(await postForm(`${base}/admin/programs?/${action}`, { slug: 'x', program: 'membership' }, { cookie })).status
				).toBe(404);
		}
		// The admin's sections link to it.
		expect((await getPage(`${base}/admin`, adminCookie)).body).toMatch(/href="\/admin\/programs"/);
	});

	it(
		'?/save makes a programme, edits it by its slug, keeps its translations; refuses each bad field by name, writing nothing',
		async () => {
			const made = await post('save', { slug: 'builders', name: 'Builders', description: 'People who ship' });
			expect(made.status).toBe(303);
			expect(made.location).toBe('/admin/programs?done=saved');
			let page = textOf((await getPage(`${base}/admin/programs?done=saved`, adminCookie)).body);
			expect(page).toContain('The programme is saved.');
			expect(page).toMatch(/Builders\s+builders/);
			expect(page).toContain('People who ship');
			expect(page).toContain('No rounds yet');

			// The same slug edits it (and its translations).
			expect(
				(
					await post('save', {
						slug: 'builders',
						name: 'Builders guild',
						description: 'People who ship things',
						'name.es': 'Constructores',
						'description.ar': 'أناس يبنون'
					})
				).status
			).toBe(303);
			const edit = (await getPage(`${base}/admin/programs?edit=builders`, adminCookie)).body;
			expect(textOf(edit)).toContain('Edit programme Builders guild');
			expect(edit).toContain('value="Constructores"');
			expect(edit).toContain('أناس يبنون');
			page = await listed();
			expect(page).toContain('Builders guild');
			expect(page.match(/builders/g)).toHaveLength(1);

			const bad: [Record<string, string | string[]>, string, RegExp][] = [
				[{ slug: 'Builders', name: 'X' }, 'program-slug', /lowercase letter/],
				[{ slug: '1st', name: 'X' }, 'program-slug', /lowercase letter/],
				[{ slug: 'a'.repeat(41), name: 'X' }, 'program-slug', /lowercase letter/],
				[{ slug: 'has space', name: 'X' }, 'program-slug', /lowercase letter/],
				[{ slug: '', name: 'X' }, 'program-slug', /lowercase letter/],
				[{ slug: ['a', 'b'], name: 'X' }, 'program-slug', /lowercase letter/],
				[{ slug: 'stewards', name: '' }, 'program-name', /Name/],
				[{ slug: 'stewards', name: 'n'.repeat(81) }, 'program-name', /80/],
				[{ slug: 'stewards', name: 'Ste\u0000wards' }, 'program-name', /Name/],
				[{ slug: 'stewards', name: 'Stewards', description: 'd'.repeat(2001) }, 'program-description', /2000/],
				[{ slug: 'builders', name: '   ' }, 'program-name', /Name/]
			];
			for (const [fields, id, message] of bad) {
				const answer = await refused('save', fields, 400, 'Some fields need attention.');
				expect(fieldError(answer, id), JSON.stringify(fields)).toMatch(message);
			}
			// A translated name over 80 characters: named by its own field.
			const long = await refused('save', { slug: 'stewards', name: 'Stewards', 'name.ar': 'ن'.repeat(81) }, 400, /80/);
			expect(long.body).toContain('ن'.repeat(81));
		},
		SLOW
	);

	it(
		'?/round adds and edits rounds, times read in COMMUNITY_TIME_ZONE or with an offset; refuses each bad field by name, writing nothing',
		async () => {
			const made = await post('round', ROUND);
			expect(made.status).toBe(303);
			expect(made.location).toBe('/admin/programs?done=round');
			let page = await listed();
			// Shown in the reader's language with the community's zone named.
			expect(page).toContain('1 March 2027 at 09:00 (Europe/Berlin)');
			expect(page).toContain('31 March 2027 at 18:00 (Europe/Berlin)');
			expect(page).toMatch(/Cohort 1[\s\S]*Upcoming/);
			const ar = textOf((await getPage(`${base}/ar/admin/programs`, adminCookie)).body);
			expect(ar).toContain('(Europe/Berlin)');
			expect(ar).toContain('قادمة');

			// Right after it (opens as Cohort 1 closes): no overlap. With an offset, and released together.
			expect(
				(
					await post('round', {
						program: 'builders',
						name: 'Cohort 2',
						opensAt: '2027-03-31T16:00:00Z',
						closesAt: '2027-04-30T18:00',
						releaseMode: 'together',
						releaseAt: '2027-05-05T12:00'
					})
				).status
			).toBe(303);
			page = await listed();
			expect(page).toContain('Together, at 5 May 2027 at 12:00 (Europe/Berlin)');

			const { program: _, ...noProgram } = ROUND;
			const later = { ...ROUND, name: 'Cohort 9', opensAt: '2028-01-01T09:00', closesAt: '2028-02-01T09:00' };
			const bad: [Record<string, string | string[]>, string, RegExp][] = [
				[{ ...later, closesAt: '2027-12-31T09:00' }, 'round-closes', /Closes must be after Opens/],
				[{ ...later, closesAt: '2028-01-01T09:00' }, 'round-closes', /Closes must be after Opens/],
				[{ ...later, opensAt: 'tomorrow' }, 'round-opens', /2027-03-01T09:00 \(read in Europe\/Berlin\)/],
				[{ ...later, opensAt: '2028-02-30T09:00' }, 'round-opens', /Opens: enter a date and time like/],
				[{ ...later, opensAt: '' }, 'round-opens', /Opens: enter a date and time\./],
				[{ ...later, closesAt: '2028-13-01T09:00' }, 'round-closes', /Closes: enter a date and time like/],
				[{ ...later, closesAt: ['2028-02-01T09:00', '2028-02-02T09:00'] }, 'round-closes', /Closes: enter/],
				// The spring-forward night in Berlin: 02:00 → 03:00.
				[
					{ ...later, opensAt: '2028-03-26T02:30', closesAt: '' },
					'round-opens',
					/clocks jump from 2028-03-26T02:00 to 2028-03-26T03:00/
				],
				[{ ...later, program: 'nope' }, 'round-program', /Choose a programme that exists/],
				[{ ...later, program: 'NOPE!' }, 'round-program', /Choose a programme that exists/],
				[noProgram, 'round-program', /Choose a programme that exists/],
				[{ ...later, name: '' }, 'round-name', /Round name/],
				[{ ...later, name: 'r'.repeat(81) }, 'round-name', /80/],
				[{ ...later, releaseMode: 'later' }, 'round-mode', /Choose when decisions reach applicants/],
				[{ ...later, releaseAt: '2028-01-10T09:00' }, 'round-release', /only for decisions released together/],
				[
					{ ...later, releaseMode: 'together', releaseAt: '2027-12-10T09:00' },
					'round-release',
					/cannot be before the round opens/
				],
				[{ ...later, id: 'abc' }, 'round-program', /no such round/],
				[{ ...later, id: '999999' }, 'round-program', /no such round/],
				// Overlaps: inside, around, and open-ended over both; named with the other round's times.
				[
					{ ...ROUND, name: 'Inside', opensAt: '2027-03-10T09:00', closesAt: '2027-03-12T09:00' },
					'round-opens',
					/overlaps the round “Cohort 1” of the same programme \(1 March 2027 at 09:00 \(Europe\/Berlin\) to 31 March 2027 at 18:00/
				],
				[
					{ ...ROUND, name: 'Around', opensAt: '2027-02-01T09:00', closesAt: '2027-06-01T09:00' },
					'round-opens',
					/overlaps the round “Cohort 1”/
				],
				[
					{ ...ROUND, name: 'Forever', opensAt: '2027-04-15T09:00', closesAt: '' },
					'round-opens',
					/overlaps the round “Cohort 2”/
				]
			];
			for (const [fields, id, message] of bad) {
				const answer = await refused('round', fields, 400, 'Some fields need attention.');
				expect(fieldError(answer, id), JSON.stringify(fields)).toMatch(message);
			}

			// Editing a round by its id: it may keep its own window; moved onto Cohort 2, it is refused.
			const list = (await getPage(`${base}/admin/programs`, adminCookie)).body;
			const roundId = (name: string) =>
				new RegExp(`href="/admin/programs\\?round=(\\d+)#round-form"[^>]*aria-label="Edit round ${name}"`).exec(
					list
				)![1]!;
			const cohort1 = roundId('Cohort 1');
			expect((await getPage(`${base}/admin/programs?round=${roundId('Open')}`, adminCookie)).body).toContain(
				'Edit round Open'
			);
			const form = (await getPage(`${base}/admin/programs?round=${cohort1}`, adminCookie)).body;
			expect(form).toContain('value="2027-03-01T09:00"');
			expect(form).toContain('value="2027-03-31T18:00"');
			expect((await post('round', { ...ROUND, id: cohort1, name: 'Cohort one' })).status).toBe(303);
			expect(await listed()).toContain('Cohort one');
			const moved = await refused(
				'round',
				{ ...ROUND, id: cohort1, opensAt: '2027-04-10T09:00', closesAt: '2027-04-20T09:00' },
				400,
				/overlaps the round “Cohort 2”/
			);
			expect(moved.body).toContain('value="2027-04-10T09:00"');
			// A round of another programme is not this one's to edit.
			await refused('round', { ...later, id: roundId('Open') }, 400, /no such round/);
		},
		SLOW
	);

	it(
		'two admins adding overlapping rounds at once: one is taken, the other refused naming it',
		async () => {
			await post('save', { slug: 'race', name: 'Race' });
			const answers = await Promise.all(
				['A', 'B', 'C'].map((name) =>
					post('round', {
						program: 'race',
						name: `Round ${name}`,
						opensAt: '2029-01-01T09:00',
						releaseMode: 'immediate'
					})
				)
			);
			expect(answers.map((a) => a.status).sort()).toEqual([303, 400, 400]);
			const page = await listed();
			expect(page.match(/Round [ABC]/g)).toHaveLength(1);
		},
		SLOW
	);

	it(
		'?/archive refuses (409, with the count) a programme with live applications, archives one without; an archived one takes no rounds and no edits',
		async () => {
			// A live application to membership (the programme /apply serves).
			const apply = await postForm(
				`${base}/apply`,
				{ displayName: 'Ada', motivation: 'I write docs for DAOs every week', contact: '@ada' },
				{ cookie: memberCookie }
			);
			expect(apply.status).toBe(303);
			const answer = await refused(
				'archive',
				{ slug: 'membership' },
				409,
				'Member portal still has 1 live applications (not rejected)'
			);
			expect(answer.body).toContain('role="alert"');
			await refused('archive', { slug: 'nope' }, 400, 'Choose a programme that exists');
			await refused('archive', { slug: 'Bad Slug' }, 400, 'lowercase letter');

			expect((await post('archive', { slug: 'race' })).status).toBe(303);
			const page = await listed();
			expect(page).toMatch(/Race\s+race\s+Archived/);
			expect(
				((await (await fetch(`${base}/api/programs`)).json()) as { programs: { slug: string }[] }).programs.map(
					(p) => p.slug
				)
			).toEqual(['membership', 'builders']);
			// Again: nothing changes.
			expect((await post('archive', { slug: 'race' })).status).toBe(303);
			await refused(
				'round',
				{ program: 'race', name: 'Late', opensAt: '2030-01-01T09:00' },
				400,
				'Choose a programme that exists'
			);
			await refused('save', { slug: 'race', name: 'Race again' }, 409, 'archived programme');
		},
		SLOW
	);

	it(
		"/admin/form?program=<slug> edits that programme's form and rubric; without it, membership's; an unknown or archived slug is the unknown path",
		async () => {
			const builders = await getPage(`${base}/admin/form?program=builders`, adminCookie);
			expect(builders.status).toBe(200);
			expect(textOf(builders.body)).toContain('Application form: Builders guild');
			// One part at a time, each with its one Save, and each part's form posts back to this programme.
			const parts = {
				'': ['save', 'edit'],
				'&part=rubric': ['rubric', 'rubricEdit'],
				'&part=eligibility': ['eligibility']
			};
			for (const [part, actions] of Object.entries(parts)) {
				const body = (await getPage(`${base}/admin/form?program=builders${part}`, adminCookie)).body;
				for (const action of ['save', 'edit', 'rubric', 'rubricEdit', 'eligibility'])
					expect(body.includes(`?/${action}&amp;program=builders`), `${part} ${action}`).toBe(actions.includes(action));
				// The tabs keep the programme.
				expect(body).toContain('href="/admin/form?program=builders&amp;part=rubric"');
			}
			// /admin/programs links each programme to its form.
			expect((await getPage(`${base}/admin/programs`, adminCookie)).body).toContain(
				'href="/admin/form?program=builders"'
			);

			const question = {
				questionCount: '1',
				'questions.0.key': 'shipped',
				'questions.0.label': 'What have you shipped?',
				'questions.0.type': 'short_text',
				'questions.0.required': 'on'
			};
			const saved = await postForm(`${base}/admin/form?/save&program=builders`, question, { cookie: adminCookie });
			expect(saved.status).toBe(303);
			expect(saved.location).toBe('/admin/form?program=builders&saved');
			const rubric = await postForm(
				`${base}/admin/form?/rubric&program=builders`,
				{ criterionCount: '1', 'criteria.0.key': 'craft', 'criteria.0.label': 'Craft' },
				{ cookie: adminCookie }
			);
			expect(rubric.status).toBe(303);
			expect(rubric.location).toBe('/admin/form?program=builders&part=rubric&saved');
			expect((await getPage(`${base}/admin/form?program=builders`, adminCookie)).body).toContain(
				'What have you shipped?'
			);
			expect((await getPage(`${base}${rubric.location}`, adminCookie)).body).toContain('value="Craft"');
			// Membership's form is as it was: no question, no rubric.
			const membership = (await getPage(`${base}/admin/form`, adminCookie)).body;
			expect(membership).not.toContain('What have you shipped?');
			expect((await getPage(`${base}/admin/form?part=rubric`, adminCookie)).body).not.toContain('value="Craft"');
			expect(textOf(membership)).not.toContain('Application form: ');

			// A refused save stays on the programme's form.
			const bad = await postForm(
				`${base}/admin/form?/save&program=builders`,
				{ ...question, 'questions.0.key': 'Bad Key' },
				{ cookie: adminCookie }
			);
			expect(bad.status).toBe(400);
			expect(textOf(bad.body)).toContain('Application form: Builders guild');

			// Unknown, malformed or archived: exactly the unknown path's 404, and nothing saved.
			const unknown = await getPage(`${base}/no-such-page`, adminCookie);
			const strip = (html: string) => html.replace(/nonce="[^"]+"/g, '');
			for (const slug of ['nope', 'NOPE', 'race', '%00'])
				expect(strip((await getPage(`${base}/admin/form?program=${slug}`, adminCookie)).body)).toBe(
					strip(unknown.body)
				);
			for (const slug of ['nope', 'race'])
				expect(
					(await postForm(`${base}/admin/form?/save&program=${slug}`, question, { cookie: adminCookie })).status
				).toBe(404);
			// A member still meets the unknown path.
			expect((await getPage(`${base}/admin/form?program=builders`, memberCookie)).status).toBe(404);
		},
		SLOW
	);

	it(
		'the rows are as the pages said: times stored as instants, translations in the programme row',
		async () => {
			const rows = await portal.query<{
				slug: string;
				name: string;
				translations: unknown;
				archived: boolean;
				rounds: unknown;
			}>(
				`select p.slug, p.name, p.translations, p.archived_at is not null as archived,
				   coalesce(json_agg(json_build_object('name', r.name, 'opens', to_char(r.opens_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI'),
				     'closes', to_char(r.closes_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI'), 'mode', r.release_mode) order by r.opens_at)
				     filter (where r.id is not null), '[]') as rounds
				 from programs p left join rounds r on r.program_id = p.id group by p.id order by p.id`
			);
			expect(rows.slice(1)).toEqual([
				{
					slug: 'builders',
					name: 'Builders guild',
					translations: { es: { name: 'Constructores' }, ar: { description: 'أناس يبنون' } },
					archived: false,
					rounds: [
						// Berlin is UTC+1 in March, UTC+2 from 28 March 2027.
						{ name: 'Cohort one', opens: '2027-03-01T08:00', closes: '2027-03-31T16:00', mode: 'immediate' },
						{ name: 'Cohort 2', opens: '2027-03-31T16:00', closes: '2027-04-30T16:00', mode: 'together' }
					]
				},
				{
					slug: 'race',
					name: 'Race',
					translations: {},
					archived: true,
					rounds: [
						{
							name: expect.stringMatching(/^Round [ABC]$/) as string,
							opens: '2029-01-01T08:00',
							closes: null,
							mode: 'immediate'
						}
					]
				}
			]);
			const forms = await portal.query<{ slug: string; questions: { key: string }[]; rubric: { key: string }[] }>(
				`select p.slug, f.questions, f.rubric from application_forms f join programs p on p.id = f.program_id order by f.id`
			);
			expect(forms.map((f) => [f.slug, f.questions.map((q) => q.key), f.rubric.map((c) => c.key)])).toEqual([
				['builders', ['shipped'], []],
				['builders', ['shipped'], ['craft']]
			]);
			expect(portal.crashes()).toEqual([]);
		},
		SLOW
	);
});
