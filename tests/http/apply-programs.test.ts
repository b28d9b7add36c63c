import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNonces } from '../helpers/csp';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn } from '../helpers/siwe';

// Applying per programme (issue 57, docs/application-form.md "Programmes and rounds") through real HTTP
// on the built server without JavaScript: /apply lists the open programmes while several are open,
// /apply/<slug> is each one's own form, one member applies to two at once, an unknown or archived slug is
// the unknown path's page, and a programme without an open round refuses (409 round_closed, nothing
// written). The community's time zone is Europe/Berlin, so every time on the pages is stated in it.
// Programmes and rounds are seeded with SQL, as an operator's script would write them. PGlite, or the
// Postgres server when TEST_DATABASE_URL is set.
const newAccount = () => privateKeyToAccount(generatePrivateKey());
const ZONE = 'Europe/Berlin';

let portal: OwnDatabasePortal;
let base: string;
const login = (account: PrivateKeyAccount) => signIn(base, account);

// Builders closes in ten days at 16:30 UTC; Later's first round opens in twenty days at 08:00 UTC.
const closes = new Date(Date.now() + 10 * 86_400_000);
closes.setUTCHours(16, 30, 0, 0);
const opens = new Date(Date.now() + 20 * 86_400_000);
opens.setUTCHours(8, 0, 0, 0);
const inZone = (at: Date, locale: string) =>
	new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: ZONE }).format(at) + ` (${ZONE})`;

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({ COMMUNITY_TIME_ZONE: ZONE });
	base = portal.url;
	// One statement (PGlite's query takes one): two programmes open besides membership (Builders with an
	// Arabic name and a closing date, Stewards open-ended), Later not open yet, Old archived.
	await portal.query(
		`with b as (insert into programs (slug, name, description, translations)
		   values ('builders', 'Builders', 'People who ship', '{"ar": {"name": "البنّاؤون", "description": "من يبنون"}}') returning id),
		 s as (insert into programs (slug, name, description) values ('stewards', 'Stewards', 'People who care') returning id),
		 l as (insert into programs (slug, name) values ('later', 'Later') returning id),
		 o as (insert into programs (slug, name, archived_at) values ('old', 'Old', now()) returning id)
		 insert into rounds (program_id, name, opens_at, closes_at)
		 select id, 'Cohort 1', now() - interval '1 day', '${closes.toISOString()}'::timestamptz from b
		 union all select id, 'Always', now() - interval '1 day', null from s
		 union all select id, 'Spring', '${opens.toISOString()}'::timestamptz, null from l
		 union all select id, 'Gone', now() - interval '1 day', null from o`
	);
}, 300_000);
afterAll(() => portal?.stop(), 60_000);

const SLOW = 300_000;
const FIELDS = { displayName: 'Ada', motivation: 'I write docs for DAOs every week', contact: '@ada' };

/** The same post as the enhanced form sends it: the action's JSON answer. */
const postAsJson = async (path: string, cookie: string) =>
	fetch(`${base}${path}`, {
		method: 'POST',
		body: new URLSearchParams(FIELDS),
		headers: { origin: base, accept: 'application/json', 'x-sveltekit-action': 'true', cookie }
	});

describe('applying per programme', () => {
	it(
		'/apply lists the open programmes (closing time in the reader’s language and the community’s zone); one member applies to two at once; each page shows its own',
		async () => {
			const member = newAccount();
			const cookie = await login(member);
			const list = await getPage(`${base}/apply`, cookie);
			expect(list.status).toBe(200);
			const text = textOf(list.body);
			expect(text).toContain('Open programmes');
			for (const name of ['Member portal', 'Builders', 'Stewards']) expect(text).toContain(name);
			expect(text).not.toContain('Later');
			expect(text).not.toContain('Old');
			expect(text).toContain(`Applications close on ${inZone(closes, 'en-GB')}.`);
			expect(text).toContain('No closing date.');
			expect(list.body).toContain('href="/apply/builders"');
			expect(list.body).toContain('href="/apply/stewards"');
			expect(list.body).not.toContain('Submit application');
			// In Arabic: the community's Arabic name, and the time in Arabic, still in Berlin's zone.
			const ar = textOf((await getPage(`${base}/ar/apply`, cookie)).body);
			expect(ar).toContain('البنّاؤون');
			expect(ar).toContain('من يبنون');
			expect(ar).toContain(inZone(closes, 'ar'));
			expect((await getPage(`${base}/ar/apply`, cookie)).body).toContain('href="/ar/apply/builders"');

			// The programme's own form, named.
			const builders = await getPage(`${base}/apply/builders`, cookie);
			expect(builders.status).toBe(200);
			expect(textOf(builders.body)).toContain('Builders');
			expect(builders.body).toContain('Submit application');

			const [a, b] = await Promise.all([
				postForm(`${base}/apply/builders`, FIELDS, { cookie }),
				postForm(`${base}/apply/stewards`, { ...FIELDS, motivation: 'I keep the lights on' }, { cookie })
			]);
			expect([a.status, a.location]).toEqual([303, '/apply/builders?done=submitted']);
			expect([b.status, b.location]).toEqual([303, '/apply/stewards?done=submitted']);
			const rows = await portal.query<{ program: string; round: string; motivation: string }>(
				`select p.slug as program, r.name as round, a.motivation from applications a
				 join programs p on p.id = a.program_id join rounds r on r.id = a.round_id
				 where a.applicant_address = '${member.address.toLowerCase()}' order by p.slug`
			);
			expect(rows).toEqual([
				{ program: 'builders', round: 'Cohort 1', motivation: FIELDS.motivation },
				{ program: 'stewards', round: 'Always', motivation: 'I keep the lights on' }
			]);
			// One live application per programme: a second to Builders is refused, Stewards' stands.
			expect((await postForm(`${base}/apply/builders`, FIELDS, { cookie })).status).toBe(409);

			// Each programme's page shows its own application, and names the other.
			const mine = textOf((await getPage(`${base}/apply/stewards`, cookie)).body);
			expect(mine).toContain('I keep the lights on');
			expect(mine).not.toContain(FIELDS.motivation);
			expect(mine).toContain('Your applications to other programmes');
			expect(mine).toContain('Builders');
			expect(mine).not.toContain('Submit application');
			// The list says where they stand in each.
			const after = textOf((await getPage(`${base}/apply`, cookie)).body);
			expect(after.match(/Your application:/g)).toHaveLength(2);
			expect(after).toContain('Your application to Builders');
			expect(after).toContain('Apply to Member portal');
		},
		SLOW
	);

	it('JSON clients posting to /apply/<slug> get the answers /apply gives', async () => {
		const cookie = await login(newAccount());
		const taken = await postAsJson('/apply/stewards', cookie);
		expect(await taken.json()).toEqual({ type: 'redirect', status: 303, location: '/apply/stewards?done=submitted' });
		const again = await postAsJson('/apply/stewards', cookie);
		const body = (await again.json()) as { type: string; status: number; data: string };
		expect([body.type, body.status]).toEqual(['failure', 409]);
		expect(body.data).toContain('already');
	});

	it(
		'an unknown, malformed or archived slug is the unknown path’s page, to a visitor and a member, by GET and POST; nothing written',
		async () => {
			const cookie = await login(newAccount());
			// Each caller's unknown path: the header draws who is signed in.
			const unknownTo = new Map<string | undefined, Awaited<ReturnType<typeof getPage>>>();
			for (const who of [cookie, undefined]) unknownTo.set(who, await getPage(`${base}/nope/nope`, who));
			for (const unknown of unknownTo.values()) expect(unknown.status).toBe(404);
			const before = await portal.rowCounts();
			for (const slug of ['nope', 'old', 'Builders', '%00', 'a'.repeat(41), 'builders%20']) {
				for (const who of [cookie, undefined]) {
					const unknown = unknownTo.get(who)!;
					const page = await getPage(`${base}/apply/${slug}`, who);
					expect(page.status, slug).toBe(404);
					// The same page to the byte (nonces aside): no route named in its script (router.resolution 'server').
					expect(withoutNonces(page.body), slug).toBe(withoutNonces(unknown.body));
					const posted = await postForm(`${base}/apply/${slug}`, FIELDS, { cookie: who });
					expect(posted.status, slug).toBe(404);
					expect(withoutNonces(posted.body), slug).toBe(withoutNonces(unknown.body));
				}
			}
			// A visitor at a real programme is asked to sign in, as at /apply.
			const visitor = await getPage(`${base}/apply/builders`);
			expect(visitor.status).toBe(401);
			expect(textOf(visitor.body)).toContain('Sign in to apply');
			expect(await portal.rowCounts()).toEqual(before);
		},
		SLOW
	);

	it(
		'a programme with no open round says when the next opens (the community’s zone) and refuses with 409 round_closed, nothing written',
		async () => {
			const cookie = await login(newAccount());
			const page = await getPage(`${base}/apply/later`, cookie);
			expect(page.status).toBe(200);
			expect(textOf(page.body)).toContain(
				`Applications are closed for now. The next round opens on ${inZone(opens, 'en-GB')}.`
			);
			expect(page.body).not.toContain('Submit application');
			const before = await portal.rowCounts();
			const refused = await postForm(`${base}/apply/later`, FIELDS, { cookie });
			expect(refused.status).toBe(409);
			expect(textOf(refused.body)).toContain(`The next round opens on ${inZone(opens, 'en-GB')}.`);
			const json = await (await postAsJson('/apply/later', cookie)).text();
			expect(json).toContain('round_closed');
			expect(json).toContain(opens.toISOString());
			expect(await portal.rowCounts()).toEqual(before);
			// The home page's source names it as upcoming, in the community's zone.
			const programs = (await (await fetch(`${base}/api/programs`)).json()) as {
				timeZone: string;
				programs: { slug: string; nextRound: { opensAt: string } | null }[];
			};
			expect(programs.timeZone).toBe(ZONE);
			expect(programs.programs.find((p) => p.slug === 'later')?.nextRound?.opensAt).toBe(opens.toISOString());
		},
		SLOW
	);
});
