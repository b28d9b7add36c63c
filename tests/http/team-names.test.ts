// The team's display names (issue 59, `team_names`) through real HTTP on the built server, without
// JavaScript: set on /admin/team, shown there and in the application page's votes with the address beside
// it, as text (markup never HTML, a right-to-left name isolated); a refused name is a 400 naming the field,
// nothing written; who may name whom.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, member } from '../helpers/auth';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { SEEDED_REVIEWERS, VOTES_SQL, seededDatabase, type SeededDatabase } from '../helpers/insights-seed';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const application = '00000000-0000-4000-8000-000000000003';
const voter = SEEDED_REVIEWERS[0]!;
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;
const everyAdmin = privateKeyToAccount(generatePrivateKey());

/** The person's markup as the portal writes it: the name isolated, then the address's code. */
const person = (name: string, address: string) =>
	new RegExp(`<bdi class="person">${name}</bdi>(?:\\s|<!--[^>]*-->)*<code title="${address}">`);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.each(engines)('team display names on %s', (engine) => {
	let database: SeededDatabase;
	let server: RunningServer;
	let owner: string;
	const post = (fields: Record<string, string>, cookie = owner) =>
		postForm(`${server.url}/admin/team?/name`, fields, { cookie });
	const teamPage = async (query = '') => (await getPage(`${server.url}/admin/team${query}`, owner)).body;

	beforeAll(async () => {
		database = await seededDatabase(engine);
		await database.run(
			VOTES_SQL +
				`insert into team_members (address, role, added_by) values ('${everyAdmin.address.toLowerCase()}', 'admin', 'sql');`
		);
		server = await startServer({
			env: {
				...database.env,
				ADMIN_ADDRESSES: admin.address,
				REVIEWER_ADDRESSES: [member.address, ...SEEDED_REVIEWERS].join(',')
			}
		});
		owner = await signIn(server.url, admin);
	}, 180_000);
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it('an owner names themselves: the team page shows the name with the address beside it', async () => {
		const saved = await post({ displayName: '  Ada Owner  ' });
		expect(saved.status).toBe(303);
		expect(saved.location).toContain('/admin/team?done=named');
		const page = await teamPage('?done=named');
		expect(page).toContain('The name was saved.');
		expect(page).toMatch(person('Ada Owner', admin.address.toLowerCase()));
		// The form shows the name saved, trimmed.
		expect(page).toMatch(/name="displayName"[^>]*value="Ada Owner"/);
	});

	it("a reviewer's name, in Arabic with markup, shows as text on the application page's votes, the address beside it", async () => {
		const name = 'مريم <b>لي</b>';
		expect((await post({ address: voter, displayName: name })).status).toBe(303);
		const page = await getPage(`${server.url}/admin/applications/${application}`, owner);
		expect(page.status).toBe(200);
		expect(page.body).not.toContain('<b>لي</b>');
		expect(page.body).toMatch(person(escapeRe('مريم &lt;b>لي&lt;/b>'), voter));
		expect(textOf(page.body)).toContain(short(voter));
		// And on the team page.
		expect(await teamPage()).toMatch(person(escapeRe('مريم &lt;b>لي&lt;/b>'), voter));
	});

	it('refuses a name too long, with control characters or a direction override: 400 naming the field, nothing written', async () => {
		for (const [displayName, message] of [
			['x'.repeat(81), 'Display name must be at most 80 characters.'],
			['Ada\u0007Bell', 'Display name must not contain control characters or line breaks.'],
			['Ada\nBell', 'Display name must not contain control characters or line breaks.'],
			['Ada \u202eBell', 'Display name']
		] as const) {
			const refused = await post({ displayName });
			expect(refused.status, JSON.stringify(displayName)).toBe(400);
			expect(textOf(refused.body)).toContain(message);
			expect(refused.body).toMatch(/name="displayName"[^>]*aria-invalid="true"/);
		}
		// 80 characters are fine; the refusals wrote nothing: the name before stays until then.
		expect(await teamPage()).toMatch(person('Ada Owner', admin.address.toLowerCase()));
		expect((await post({ displayName: 'é'.repeat(80) })).status).toBe(303);
		expect(await teamPage()).toMatch(person('é'.repeat(80), admin.address.toLowerCase()));
	});

	it('an empty name clears it: the address alone again', async () => {
		const cleared = await post({ displayName: '   ' });
		expect(cleared.location).toContain('done=name-cleared');
		const page = await teamPage('?done=name-cleared');
		expect(page).toContain('The name was cleared.');
		expect(page).not.toMatch(person('[^<]*', admin.address.toLowerCase()));
	});

	it('who may name whom: an address off the team is 404, an admin names a reviewer but not an owner, a reviewer is the unknown path', async () => {
		const stranger = privateKeyToAccount(generatePrivateKey()).address;
		const off = await post({ address: stranger, displayName: 'Nobody' });
		expect(off.status).toBe(404);
		expect(textOf(off.body)).toContain('This address is not on the team.');
		expect((await post({ address: '0x1234', displayName: 'Bad' })).status).toBe(400);

		const adminCookie = await signIn(server.url, everyAdmin);
		expect((await post({ address: SEEDED_REVIEWERS[1]!, displayName: 'Rev Two' }, adminCookie)).status).toBe(303);
		const refused = await post({ address: admin.address, displayName: 'Renamed' }, adminCookie);
		expect(refused.status).toBe(403);
		expect(await teamPage()).not.toContain('Renamed');
		expect(await teamPage()).toMatch(person('Rev Two', SEEDED_REVIEWERS[1]!));

		const reviewer = await signIn(server.url, member);
		expect((await post({ displayName: 'Me' }, reviewer)).status).toBe(404);
	});
});
