import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn } from '../helpers/siwe';

// Programmes and rounds (issue 57, docs/data.md "programs", "rounds") through real HTTP on the built
// server without JavaScript: the migration's programme `membership` as /api/programs shows it, a
// submission while no round is open (409 round_closed, nothing written), a resubmission then, and one
// live application per programme. Rounds are seeded with SQL, as an operator's script would write them.
// PGlite, or the Postgres server when TEST_DATABASE_URL is set.
const newAccount = () => privateKeyToAccount(generatePrivateKey());

let portal: OwnDatabasePortal;
let base: string;
const login = (account: PrivateKeyAccount) => signIn(base, account);

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase();
	base = portal.url;
}, 240_000);
afterAll(() => portal?.stop(), 60_000);

// On PGlite every query()/rowCounts() stops the server and starts it again (tests/helpers/own-database.ts).
const SLOW = 300_000;

const FIELDS = { displayName: 'Ada', motivation: 'I write docs for DAOs every week', contact: '@ada' };

async function apply(account: PrivateKeyAccount) {
	const sent = await postForm(`${base}/apply`, FIELDS, { cookie: await login(account) });
	expect(sent.status).toBe(303);
}

/** The same post as the enhanced form sends it: the action's JSON answer. */
const postAsJson = async (account: PrivateKeyAccount) =>
	fetch(`${base}/apply`, {
		method: 'POST',
		body: new URLSearchParams(FIELDS),
		headers: { origin: base, accept: 'application/json', 'x-sveltekit-action': 'true', cookie: await login(account) }
	});

interface ProgramsBody {
	programs: {
		slug: string;
		name: string;
		description: string;
		open: boolean;
		round: { id: number; name: string; opensAt: string; closesAt: string | null } | null;
		nextRound: { id: number; name: string; opensAt: string; closesAt: string | null } | null;
	}[];
}

const programs = async () => {
	const res = await fetch(`${base}/api/programs`);
	expect(res.status).toBe(200);
	expect(res.headers.get('content-type')).toMatch(/^application\/json/);
	const maxAge = /max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '');
	expect(Number(maxAge?.[1])).toBeLessThanOrEqual(60);
	return (await res.json()) as ProgramsBody;
};

describe('programmes and rounds', () => {
	it('the migration made programme membership, named as the community, open in one open-ended round "Open"', async () => {
		const body = await programs();
		expect(body).toEqual({
			timeZone: 'UTC',
			programs: [
				{
					slug: 'membership',
					// The default build's community name (PUBLIC_COMMUNITY_NAME unset).
					name: 'Member portal',
					description: '',
					translations: {},
					open: true,
					round: {
						id: expect.any(Number) as number,
						name: 'Open',
						opensAt: expect.any(String) as string,
						closesAt: null
					},
					nextRound: null
				}
			]
		});
		expect(new Date(body.programs[0]!.round!.opensAt).getTime()).toBeLessThanOrEqual(Date.now());
		// Public: no session needed, and a signed-in visitor reads the same.
		expect(
			await (await fetch(`${base}/api/programs`, { headers: { cookie: await login(newAccount()) } })).json()
		).toEqual(body);
	});

	it(
		'a new application takes the open round; with none open: 409 round_closed (page and JSON), nothing written, the next opening named; a resubmission after needs_info still goes',
		async () => {
			const asked = newAccount();
			await apply(asked);
			const [row] = await portal.query<{ id: string; program: string; round: string }>(
				`select a.id, p.slug as program, r.name as round from applications a
				 join programs p on p.id = a.program_id join rounds r on r.id = a.round_id
				 where a.applicant_address = '${asked.address.toLowerCase()}'`
			);
			expect(row).toMatchObject({ program: 'membership', round: 'Open' });

			// The round closed yesterday; the next opens in ten days, at 09:30 UTC.
			const next = new Date(Date.now() + 10 * 86_400_000);
			next.setUTCHours(9, 30, 0, 0);
			// One statement (PGlite's query takes one): asked for more information, the round closed, the next one.
			await portal.query(
				`with asked as (update applications set review = 'needs_info' where id = '${row!.id}' returning 1),
				 closed as (update rounds set opens_at = now() - interval '30 days', closes_at = now() - interval '1 day'
				   where name = 'Open' returning program_id)
				 insert into rounds (program_id, name, opens_at) select program_id, 'Cohort 2', '${next.toISOString()}' from closed`
			);
			const body = await programs();
			expect(body.programs).toHaveLength(1);
			expect(body.programs[0]).toMatchObject({
				slug: 'membership',
				open: false,
				round: null,
				nextRound: { name: 'Cohort 2', opensAt: next.toISOString(), closesAt: null }
			});

			const late = newAccount();
			const named = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(
				next
			);
			const page = await getPage(`${base}/apply`, await login(late));
			expect(page.status).toBe(200);
			expect(textOf(page.body)).toContain(`Applications are closed for now. The next round opens on ${named} (UTC).`);
			expect(page.body).not.toContain('Submit application');

			const before = await portal.rowCounts();
			const refused = await postForm(`${base}/apply`, FIELDS, { cookie: await login(late) });
			expect(refused.status).toBe(409);
			expect(textOf(refused.body)).toContain(`The next round opens on ${named} (UTC).`);
			const json = await postAsJson(late);
			const text = await json.text();
			expect(text).toContain('round_closed');
			expect(text).toContain(next.toISOString());
			// Asked for more information before the close: the answer is taken.
			const resubmitted = await postForm(
				`${base}/apply`,
				{ ...FIELDS, motivation: 'More detail' },
				{ cookie: await login(asked) }
			);
			expect(resubmitted.status).toBe(303);
			const after = await portal.rowCounts();
			expect(after.members).toBe(before.members);
			expect(after.applications).toBe(before.applications);
			const [again] = await portal.query<{ review: string; motivation: string }>(
				`select review, motivation from applications where id = '${row!.id}'`
			);
			expect(again).toEqual({ review: 'pending', motivation: 'More detail' });

			// Open again (the next round's opening moved to now): taken at once, no restart, in that round.
			await portal.query(`update rounds set opens_at = now() - interval '1 second' where name = 'Cohort 2'`);
			await apply(late);
			const [taken] = await portal.query<{ round: string }>(
				`select r.name as round from applications a join rounds r on r.id = a.round_id
				 where a.applicant_address = '${late.address.toLowerCase()}'`
			);
			expect(taken!.round).toBe('Cohort 2');
		},
		SLOW
	);

	it(
		'two programmes: a member may hold one live application in each, never two in one',
		async () => {
			const member = newAccount();
			const address = member.address.toLowerCase();
			await login(member);
			// Builders, open now; the member's application there written as SQL would (round chosen by the trigger).
			await portal.query(
				`with builders as (insert into programs (slug, name, description) values ('builders', 'Builders', 'People who ship') returning id)
				 insert into rounds (program_id, name, opens_at) select id, 'Cohort 1', now() - interval '1 day' from builders`
			);
			await portal.query(
				`insert into applications (applicant_address, display_name, motivation, program_id)
				 select '${address}', 'Ada', 'Builds', id from programs where slug = 'builders'`
			);
			const body = await programs();
			expect(body.programs.map((p) => [p.slug, p.open])).toEqual([
				['membership', true],
				['builders', true]
			]);
			expect(body.programs[1]).toMatchObject({
				name: 'Builders',
				description: 'People who ship',
				round: { name: 'Cohort 1' }
			});

			// Live in builders, the member still applies to membership; a second one there is refused.
			await apply(member);
			const second = await postForm(`${base}/apply`, FIELDS, { cookie: await login(member) });
			expect(second.status).toBe(409);
			const rows = await portal.query<{ program: string; round: string }>(
				`select p.slug as program, r.name as round from applications a
				 join programs p on p.id = a.program_id join rounds r on r.id = a.round_id
				 where a.applicant_address = '${address}' order by p.id`
			);
			expect(rows).toEqual([
				{ program: 'membership', round: 'Cohort 2' },
				{ program: 'builders', round: 'Cohort 1' }
			]);
			await expect(
				portal.query(
					`insert into applications (applicant_address, display_name, motivation, program_id)
					 select '${address}', 'Ada', 'Twice', id from programs where slug = 'builders'`
				)
			).rejects.toThrow(/applications_one_live_per_program/);

			// Archived: left out of /api/programs.
			await portal.query(`update programs set archived_at = now() where slug = 'builders'`);
			expect((await programs()).programs.map((p) => p.slug)).toEqual(['membership']);
		},
		SLOW
	);

	it(
		"the migration's round \"Open\" reads in the page's language in the applicant's history (issue 61)",
		async () => {
			// Its history names the round once the programme has another (the earlier tests added Cohort 2): "Open" open
			// again, Cohort 2 closed, a new application lands in "Open".
			await portal.query(
				`update rounds set closes_at = case when name = 'Open' then null else now() end where name in ('Open', 'Cohort 2')`
			);
			const account = newAccount();
			await apply(account);
			const cookie = await login(account);
			for (const [prefix, words] of [
				['', 'Open'],
				['/es', 'Abierta'],
				['/pt-BR', 'Aberta'],
				['/zh-Hans', '开放'],
				['/ar', 'مفتوحة']
			] as const) {
				const page = await getPage(`${base}${prefix}/apply`, cookie);
				expect(page.status).toBe(200);
				const text = textOf(page.body);
				if (prefix) expect(text, prefix).not.toContain('· Open');
				expect(text, prefix).toContain(`· ${words}`);
			}
		},
		SLOW
	);
});
