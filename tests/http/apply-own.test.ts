import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { Receiver, newSecret } from '../helpers/receiver';
import { signIn, testAccount } from '../helpers/siwe';

// The applicant's own application (issue 58, docs/application-form.md "Drafts" and "Editing and
// withdrawing") through real HTTP on the built server: drafts saved (204 to fetch, 303 to a form),
// restored from another sign-in, refused over 512 KiB (413, nothing stored, the typed text in the page),
// deleted by the submission; editing before review and its 409 `locked` (after a vote, after a move,
// round closed); withdrawing (state, audit row, webhook, the inbox's confirmation, apply again at once, reason
// 0–500, twice refused).
// The programme `cohort` is seeded with SQL beside membership, so both are reached by /apply/<slug>.
// PGlite, or the Postgres server when TEST_DATABASE_URL is set.
const newAccount = () => privateKeyToAccount(generatePrivateKey());
const admin = testAccount('admin');
const reviewer = newAccount();

let portal: OwnDatabasePortal;
let base: string;
let hook: Receiver;
let adminCookie: string;
const login = (account: PrivateKeyAccount) => signIn(base, account);
const SLOW = 300_000;

beforeAll(async () => {
	hook = await new Receiver().start();
	portal = await startPortalOnOwnDatabase({
		ADMIN_ADDRESSES: admin.address,
		REVIEWER_ADDRESSES: reviewer.address,
		WEBHOOK_URLS: hook.url,
		WEBHOOK_SECRET: newSecret()
	});
	base = portal.url;
	await portal.query(
		`with c as (insert into programs (slug, name) values ('cohort', 'Cohort') returning id)
		 insert into rounds (program_id, name, opens_at, closes_at) select id, 'Spring', now() - interval '1 day', null from c`
	);
	adminCookie = await login(admin);
}, SLOW);
afterAll(async () => {
	await portal?.stop();
	await hook?.stop();
}, 60_000);

const FIELDS = { displayName: 'Ada', motivation: 'I write docs for DAOs every week', contact: '@ada' };

/** A draft as the page's script saves it: fetch, urlencoded, no page asked for. */
const saveDraftByFetch = (path: string, cookie: string, fields: Record<string, string>) =>
	fetch(`${base}${path}?/draft`, {
		method: 'POST',
		redirect: 'manual',
		body: new URLSearchParams(fields),
		headers: { origin: base, accept: '*/*', cookie }
	});

const applicationId = async (account: PrivateKeyAccount) => {
	const page = await getPage(`${base}/admin?sort=newest&q=${account.address}`, adminCookie);
	return /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
};

describe('drafts', () => {
	it(
		'saved as typed (204 to fetch, 303 to a form), restored in another sign-in, refused over 512 KiB, never shown to admins, deleted by the submission',
		async () => {
			const member = newAccount();
			const phone = await login(member);
			const saved = await saveDraftByFetch('/apply/membership', phone, {
				displayName: 'Ada draft',
				motivation: 'DRAFT-MARK half written',
				'answers.unknown': 'kept as typed'
			});
			expect(saved.status).toBe(204);
			// Another browser, another sign-in: the form is prefilled, and says when it was saved.
			const desktop = await login(member);
			const page = await getPage(`${base}/apply/membership`, desktop);
			expect(page.status).toBe(200);
			expect(page.body).toContain('DRAFT-MARK half written');
			expect(page.body).toContain('value="Ada draft"');
			expect(textOf(page.body)).toMatch(/Saved at \d{2}:\d{2}/);
			// Without JavaScript: the "Save draft" button posts the form, and comes back to it.
			const byForm = await postForm(
				`${base}/apply/membership?/draft`,
				{ displayName: 'Ada draft', motivation: 'DRAFT-MARK more written' },
				{ cookie: desktop }
			);
			expect(byForm.status).toBe(303);
			expect(byForm.location).toBe('/apply/membership');
			expect((await getPage(`${base}/apply/membership`, phone)).body).toContain('DRAFT-MARK more written');
			// Over 512 KiB once stored (a multipart body of quotes, each two bytes in JSON): 413, nothing
			// stored, and the page keeps what was typed.
			const big = new FormData();
			big.append('displayName', 'Ada draft');
			big.append('motivation', 'TOO-BIG-MARK' + '"'.repeat(300 * 1024));
			const tooBig = await fetch(`${base}/apply/membership?/draft`, {
				method: 'POST',
				redirect: 'manual',
				body: big,
				headers: { origin: base, accept: 'text/html', cookie: desktop }
			});
			expect(tooBig.status).toBe(413);
			// The same from a script: 413 with the JSON error body.
			const byScript = await fetch(`${base}/apply/membership?/draft`, {
				method: 'POST',
				body: big,
				headers: { origin: base, accept: 'application/json', cookie: desktop }
			});
			expect(byScript.status).toBe(413);
			expect(((await byScript.json()) as { error: { code: string } }).error.code).toBe('too_large');
			const refusedPage = await tooBig.text();
			expect(refusedPage).toContain('TOO-BIG-MARK');
			expect(textOf(refusedPage)).toContain('over 512 KiB');
			expect((await getPage(`${base}/apply/membership`, phone)).body).toContain('DRAFT-MARK more written');
			// Never shown to admins: the review table finds nothing of it.
			const table = await getPage(`${base}/admin?q=DRAFT-MARK`, adminCookie);
			expect(table.body).not.toContain('href="/admin/applications/');
			expect(table.body).not.toContain(member.address.toLowerCase());
			// The submission deletes it: after withdrawing, the new form is empty.
			expect((await postForm(`${base}/apply/membership`, FIELDS, { cookie: desktop })).status).toBe(303);
			expect((await postForm(`${base}/apply/membership?/withdraw`, { reason: '' }, { cookie: desktop })).status).toBe(
				303
			);
			const again = await getPage(`${base}/apply/membership`, desktop);
			expect(textOf(again.body)).toContain('Apply again');
			expect(again.body).not.toContain('DRAFT-MARK');
			// A visitor: signed out, the draft action asks for a sign-in and stores nothing.
			const visitor = await saveDraftByFetch('/apply/membership', '', { motivation: 'VISITOR-MARK' });
			expect(visitor.status).toBe(401);
			// An unknown programme: the unknown path's 404.
			expect((await saveDraftByFetch('/apply/nope', desktop, { motivation: 'x' })).status).toBe(404);
			const rows = await portal.query<{ n: number }>(
				`select count(*)::int as n from application_drafts where member_address = '${member.address.toLowerCase()}'`
			);
			expect(rows[0]!.n).toBe(0);
		},
		SLOW
	);
});

describe('Enter in a field', () => {
	// The HTML spec's implicit submission clicks the form's default button, its first submit button in tree
	// order: it must be the submission (the form's own action), not "Save draft" (`formaction="?/draft"`).
	it('submits the application: the form’s first submit button is the default action, and posting as it does applies', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const page = await getPage(`${base}/apply/cohort`, cookie);
		expect(page.status).toBe(200);
		const form = /<form[^>]*>(?:(?!<\/form>)[\s\S])*name="displayName"[\s\S]*?<\/form>/.exec(page.body)?.[0];
		expect(form).toBeDefined();
		const opening = /^<form[^>]*>/.exec(form!)![0];
		const submits = [...form!.matchAll(/<button[^>]*type="submit"[^>]*>/g)].map((b) => b[0]);
		expect(submits.length).toBeGreaterThanOrEqual(2);
		expect(submits.some((b) => b.includes('formaction="?/draft"'))).toBe(true);
		const first = submits[0]!;
		expect(first).not.toMatch(/formaction=|disabled|\bname=/);
		expect(opening).not.toMatch(/action=/);
		// What the browser then sends: the fields to the page's own URL, the default action.
		const sent = await postForm(`${base}/apply/cohort`, FIELDS, { cookie });
		expect(sent.status).toBe(303);
		const [row] = await portal.query<{ review: string }>(
			`select review from applications where applicant_address = '${member.address.toLowerCase()}'`
		);
		expect(row?.review).toBe('pending');
	});
});

describe('editing before review', () => {
	it(
		'replaces the pending application (revision and audit row); 409 locked after a vote and after a move, the page saying why',
		async () => {
			const ada = newAccount();
			const cookie = await login(ada);
			expect((await postForm(`${base}/apply/membership`, FIELDS, { cookie })).status).toBe(303);
			const before = await getPage(`${base}/apply/membership`, cookie);
			expect(textOf(before.body)).toContain('Edit your application');
			// `?edit`: the form, in edit mode, holds the application.
			const form = await getPage(`${base}/apply/membership?edit`, cookie);
			expect(form.body).toContain('action="?/edit"');
			expect(form.body).toContain('I write docs for DAOs every week');
			// A bad field: 400 naming it, nothing changed.
			const bad = await postForm(`${base}/apply/membership?/edit`, { ...FIELDS, displayName: '' }, { cookie });
			expect(bad.status).toBe(400);
			const edited = await postForm(
				`${base}/apply/membership?/edit`,
				{ ...FIELDS, motivation: 'EDITED-MARK I also translate' },
				{ cookie }
			);
			expect(edited.status).toBe(303);
			expect(edited.location).toBe('/apply/membership?done=edited');
			const after = await getPage(`${base}/apply/membership?done=edited`, cookie);
			expect(after.body).toContain('EDITED-MARK I also translate');
			expect(textOf(after.body)).toContain('Your changes are saved.');
			expect(textOf(after.body)).toContain('Edited before review.');
			// The admin reads the edit in the history, the text before in the revisions.
			const id = await applicationId(ada);
			const detail = textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body);
			expect(detail).toContain('EDITED-MARK I also translate');
			expect(detail).toContain('Edited before review.');
			// A reviewer votes: locked.
			const reviewerCookie = await login(reviewer);
			expect(
				(await postForm(`${base}/review/${id}?/vote`, { vote: 'approve' }, { cookie: reviewerCookie })).status
			).toBe(303);
			const locked = await postForm(`${base}/apply/membership?/edit`, FIELDS, { cookie });
			expect(locked.status).toBe(409);
			expect(textOf(locked.body)).toContain('a reviewer has already voted on it');
			const page = textOf((await getPage(`${base}/apply/membership`, cookie)).body);
			expect(page).not.toContain('Edit your application');
			expect(page).toContain('a reviewer has already voted on it');

			// Moved: asked for more, resubmitted (pending again), still locked.
			const bob = newAccount();
			const bobCookie = await login(bob);
			expect((await postForm(`${base}/apply/cohort`, FIELDS, { cookie: bobCookie })).status).toBe(303);
			const bobId = await applicationId(bob);
			expect(
				(
					await postForm(
						`${base}/admin/applications/${bobId}?/transition`,
						{ field: 'review', to: 'needs_info', reason: 'Tell us more' },
						{ cookie: adminCookie }
					)
				).status
			).toBe(303);
			const whileAsked = await postForm(`${base}/apply/cohort?/edit`, FIELDS, { cookie: bobCookie });
			expect(whileAsked.status).toBe(409);
			expect((await postForm(`${base}/apply/cohort`, FIELDS, { cookie: bobCookie })).status).toBe(303);
			const moved = await postForm(`${base}/apply/cohort?/edit`, FIELDS, { cookie: bobCookie });
			expect(moved.status).toBe(409);
			expect(textOf(moved.body)).toContain('a reviewer has already changed its state');
		},
		SLOW
	);

	it(
		'409 locked once its round has closed',
		async () => {
			const cy = newAccount();
			const cookie = await login(cy);
			expect((await postForm(`${base}/apply/cohort`, FIELDS, { cookie })).status).toBe(303);
			await portal.query(
				`update rounds set closes_at = now() where program_id = (select id from programs where slug = 'cohort')`
			);
			const again = await login(cy);
			const closed = await postForm(`${base}/apply/cohort?/edit`, FIELDS, { cookie: again });
			expect(closed.status).toBe(409);
			expect(textOf(closed.body)).toContain('its round has closed');
			expect(textOf((await getPage(`${base}/apply/cohort`, again)).body)).toContain('its round has closed');
		},
		SLOW
	);
});

describe('withdrawing', () => {
	it(
		'withdrawn with a reason: audit row by the applicant, application.withdrawn webhook, apply again at once; a reason over 500 and a second withdrawal refused',
		async () => {
			const dee = newAccount();
			const cookie = await login(dee);
			expect((await postForm(`${base}/apply/membership`, FIELDS, { cookie })).status).toBe(303);
			const id = await applicationId(dee);
			const long = await postForm(`${base}/apply/membership?/withdraw`, { reason: 'x'.repeat(501) }, { cookie });
			expect(long.status).toBe(400);
			expect(textOf(long.body)).toMatch(/Reason \(optional\)/);
			const done = await postForm(`${base}/apply/membership?/withdraw`, { reason: 'Found another way in' }, { cookie });
			expect(done.status).toBe(303);
			expect(done.location).toBe('/apply/membership?done=withdrawn');
			const page = textOf((await getPage(`${base}/apply/membership?done=withdrawn`, cookie)).body);
			expect(page).toContain('Your application is withdrawn.');
			expect(page).toContain('You withdrew this application.');
			expect(page).toContain('Apply again');
			// The admin's table has a Withdrawn tab; the application's history names the applicant and the reason.
			const tab = await getPage(`${base}/admin?review=withdrawn`, adminCookie);
			expect(tab.body).toContain(`/admin/applications/${id}`);
			// The CSV of that tab holds it, its review column `withdrawn`.
			const csv = await getPage(`${base}/admin/applications.csv?review=withdrawn`, adminCookie);
			const line = csv.body.split(/\r?\n/).find((l) => l.includes(id));
			expect(line).toBeDefined();
			expect(line!.split(',')).toContain('"withdrawn"');
			const detail = textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body);
			expect(detail).toContain('Found another way in');
			expect(detail).toMatch(/Withdrawn/);
			// The applicant's inbox confirms it, in the portal's words for `application.withdrawn`.
			const inbox = textOf((await getPage(`${base}/inbox`, cookie)).body);
			expect(inbox).toContain('Your application was withdrawn');
			expect(inbox).toContain('Nobody will review it now.');
			// Twice: refused, nothing changes.
			const twice = await postForm(`${base}/apply/membership?/withdraw`, { reason: '' }, { cookie });
			expect(twice.status).toBe(409);
			// The webhook.
			// This application's event (the drafts test withdrew another before).
			await hook.until((r) => r.some((x) => x.body.includes('"application.withdrawn"') && x.body.includes(id)), 20_000);
			const event = hook.received
				.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
				.find((e) => e.type === 'application.withdrawn' && e.data.applicationId === id)!;
			expect(event.data).toMatchObject({
				from: 'pending',
				reason: 'Found another way in',
				executor: dee.address.toLowerCase(),
				program: { slug: 'membership' }
			});
			// Apply again at once.
			expect((await postForm(`${base}/apply/membership`, FIELDS, { cookie })).status).toBe(303);
			const audit = await portal.query<{ executor_address: string; from_state: string; to_state: string }>(
				`select executor_address, from_state, to_state from application_events where application_id = '${id}'`
			);
			expect(audit).toEqual([
				{ executor_address: dee.address.toLowerCase(), from_state: 'pending', to_state: 'withdrawn' }
			]);
		},
		SLOW
	);
});

describe('an unknown programme', () => {
	// Issue 61: a refusal reads in the page's language. An unknown programme is the unknown path's 404
	// (apply-route.ts), its page in the locale's words; "No such programme." is only the API's and a race's.
	it.each([
		['', 'Page not found'],
		['/es', 'Página no encontrada'],
		['/ar', 'الصفحة غير موجودة']
	])('withdrawing from %s/apply/nope: the unknown path\'s 404 ("%s"), nothing written', async (prefix, title) => {
		const member = newAccount();
		const cookie = await login(member);
		const page = await postForm(`${base}${prefix}/apply/nope?/withdraw`, { reason: '' }, { cookie });
		expect(page.status).toBe(404);
		expect(textOf(page.body)).toContain(title);
		expect(textOf(page.body)).not.toContain(prefix === '' ? 'Página' : 'Page not found');
		const rows = await portal.query<{ n: number }>(
			`select count(*)::int as n from application_events where executor_address = '${member.address.toLowerCase()}'`
		);
		expect(rows[0]!.n).toBe(0);
	});
});
