// A programme's name on the admins' and reviewers' pages in the page's locale where the community gave one
// (issue 61), as the applicant's pages name it (programInLocale): the review table's filter and rows, an
// application's page, insights, the reviewers' queue, the team, the reviewers' settings, the programmes'
// list, the form builder's heading and the message preview. The insights seed with two applications in a
// second programme, "Builders", which the community calls "Constructores" in Spanish; membership is
// "Membresía". The CSV keeps the original (exempt).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage, postForm } from '../helpers/forms';
import { VOTES_SQL, seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const BUILDERS_SQL = `
insert into programs (slug, name, translations) values ('builders', 'Builders', '{"es": {"name": "Constructores"}}');
update programs set translations = '{"es": {"name": "Membresía"}}' where slug = 'membership';
insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() - interval '300 days' from programs where slug = 'builders';
update applications set program_id = (select id from programs where slug = 'builders'),
	round_id = (select r.id from rounds r join programs p on p.id = r.program_id where p.slug = 'builders')
	where id in ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000005');
`;
const BUILDERS_APPLICATION = '00000000-0000-4000-8000-000000000003';

/** A page's HTML without Svelte's hydration markers. */
const plain = (html: string) => html.replace(/<!--[\s\S]*?-->/g, '');

describe.each(engines)('programme names in the page’s locale on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	let cookie: string;
	beforeAll(async () => {
		database = await seededDatabase(engine);
		await database.run(VOTES_SQL);
		await database.run(BUILDERS_SQL);
		server = await startServer({
			env: { ...database.env, ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: member.address }
		});
		cookie = await signIn(server.url, admin);
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	const page = async (path: string, as = cookie) => {
		const answer = await getPage(`${server.url}${path}`, as);
		expect(answer.status, path).toBe(200);
		return plain(answer.body);
	};

	it('the review table, an application’s page and insights name it in Spanish on /es, and as the community wrote it in English', async () => {
		const table = await page('/es/admin');
		expect(table).toMatch(/<option value="builders"[^>]*>Constructores<\/option>/);
		expect(table).toMatch(/<option value="membership"[^>]*>Membresía<\/option>/);
		expect(table).toContain('Constructores · Cohort 1');
		expect(table).not.toContain('Builders');

		const application = await page(`/es/admin/applications/${BUILDERS_APPLICATION}`);
		expect(application).toMatch(/<bdi>Constructores<\/bdi> ·\s*<bdi>Cohort 1<\/bdi>/);

		const insights = await page('/es/admin/insights');
		expect(insights).toMatch(/<option value="builders"[^>]*>Constructores<\/option>/);

		// English has no translation: the original.
		const english = await page('/admin');
		expect(english).toContain('Builders · Cohort 1');
		expect(english).not.toContain('Constructores');
	});

	it('the reviewers’ queue, the team, the reviewers’ settings, the programmes, the form builder and the message preview name it in Spanish', async () => {
		const queue = await page('/es/review', await signIn(server.url, member));
		expect(queue).toContain('<bdi>Constructores</bdi>');
		expect(queue).not.toContain('Builders');

		const added = await postForm(
			`${server.url}/es/admin/team?/add`,
			{ address: '0x00000000000000000000000000000000000000b1', role: 'reviewer', program: 'builders' },
			{ cookie }
		);
		expect(added.status).toBe(303);
		const team = await page('/es/admin/team');
		expect(team).toMatch(/<option value="builders"[^>]*>Constructores<\/option>/);
		expect(team).toMatch(/<td data-label="[^"]*">Constructores<\/td>/);
		expect(team).not.toContain('Builders');

		const reviewers = await page('/es/admin/reviewers');
		expect(reviewers).toMatch(/<label for="reviewers-per-application-builders"[^>]*>Constructores</);

		const programs = await page('/es/admin/programs');
		expect(programs).toContain('<bdi>Constructores</bdi>');
		expect(programs).toContain('<bdi>Membresía</bdi>');

		const form = await page('/es/admin/form?program=builders');
		expect(form).toMatch(/<h1[^>]*>[^<]*Constructores<\/h1>/);

		// The preview fills {program} in the template's language (membership's Spanish name), not in the page's.
		expect(await page('/es/admin/messages?event=review.approved&locale=es')).toContain('Membresía');
		expect(await page('/es/admin/messages?event=review.approved&locale=en')).not.toContain('Membresía');
	});
});
