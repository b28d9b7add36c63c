import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn, testAccount } from '../helpers/siwe';

// Asking for changes per answer, what a resubmission changed, and the date a rejected applicant may
// apply again (docs/review-guide.md), through real HTTP on the built server without JavaScript;
// PGlite, or the Postgres server when TEST_DATABASE_URL is set.
const admin = testAccount('admin');
const newAccount = () => privateKeyToAccount(generatePrivateKey());

let portal: OwnDatabasePortal;
let base: string;
const login = (account: PrivateKeyAccount) => signIn(base, account);

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
	base = portal.url;
	const saved = await postForm(
		`${base}/admin/form?/save`,
		{
			questionCount: '2',
			'questions.0.key': 'city',
			'questions.0.label': 'Which city?',
			'questions.0.type': 'short_text',
			'questions.1.key': 'about',
			'questions.1.label': 'Anything else?',
			'questions.1.type': 'long_text'
		},
		{ cookie: await login(admin) }
	);
	expect(saved.status).toBe(303);
	// A server start and a first sign-in on a busy two-core machine.
}, 240_000);
afterAll(() => portal?.stop(), 60_000);

/** A member's application (on the current form), and its id. */
async function apply(account: PrivateKeyAccount, motivation = 'I write docs for DAOs every week') {
	const cookie = await login(account);
	const sent = await postForm(
		`${base}/apply`,
		{ displayName: 'Ada', motivation, contact: '@ada', 'answers.city': 'Berlin', 'answers.about': 'Nothing' },
		{ cookie }
	);
	expect(sent.status).toBe(303);
	const [row] = await portal.query<{ id: string }>(
		`select id from applications where applicant_address = '${account.address.toLowerCase()}' order by created_at desc limit 1`
	);
	return { cookie, id: row!.id };
}

const move = async (id: string, fields: Record<string, string>) =>
	postForm(
		`${base}/admin/applications/${id}?/transition`,
		{ field: 'review', from: 'pending', reason: '', ...fields },
		{ cookie: await login(admin) }
	);

const eventsOf = (id: string) =>
	portal.query<{ to_state: string; reason: string | null; asks: Record<string, string> | null }>(
		`select to_state, reason, asks from application_events where application_id = '${id}' order by id`
	);

// On PGlite every query()/rowCounts() stops the server and starts it again (tests/helpers/own-database.ts):
// several of those per test, on a busy machine.
const SLOW = 300_000;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('asking per answer on a needs_info move', () => {
	it(
		'refuses with a 400 naming the field, and writes nothing: no reason and no ask, empty, unknown key, over 500, with a rejection',
		async () => {
			const { id } = await apply(newAccount());
			const before = await portal.rowCounts();
			const cases: [Record<string, string>, string, RegExp][] = [
				[{ to: 'needs_info' }, 'reason', /A reason or a comment on at least one answer/],
				[{ to: 'needs_info', 'ask.city': '  \n ' }, 'reason', /A reason or a comment/],
				[{ to: 'needs_info', 'ask.hobby': 'Which?' }, 'ask.hobby', /no answer with the key “hobby”/],
				[{ to: 'needs_info', 'ask.__proto__': 'x', reason: 'R' }, 'ask.__proto__', /No answer has this key/],
				[{ to: 'needs_info', 'ask.city': 'x'.repeat(501) }, 'ask.city', /at most 500 characters/],
				[{ to: 'needs_info', 'ask.city': 'bell\u0007' }, 'ask.city', /control characters/],
				[{ to: 'rejected', reason: 'No', 'ask.city': 'Which?', confirm: 'yes' }, 'ask.city', /only with/]
			];
			for (const [fields, field, message] of cases) {
				const answer = await move(id, fields);
				expect(answer.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
				expect(textOf(answer.body)).toMatch(message);
				expect(answer.body).toContain(field === 'reason' ? 'name="reason"' : 'ask.');
			}
			expect(await portal.rowCounts()).toEqual(before);
			expect(await eventsOf(id)).toEqual([]);
		},
		SLOW
	);

	it(
		'stores the asks on the audit row; the applicant sees each by its field, linked, and resubmits; the admin and reviewer pages show what changed',
		async () => {
			const member = newAccount();
			const { cookie, id } = await apply(member);
			const asked = await move(id, {
				to: 'needs_info',
				'ask.city': 'Which <b>city</b> exactly?',
				'ask.motivation': 'Say what you wrote.',
				'ask.about': ''
			});
			expect(asked.status).toBe(303);
			expect(await eventsOf(id)).toEqual([
				{
					to_state: 'needs_info',
					reason: null,
					asks: { city: 'Which <b>city</b> exactly?', motivation: 'Say what you wrote.' }
				}
			]);

			// The applicant's notification of the move carries each ask with its field's label, as text.
			// The question's label and each comment are user text, each its own <bdi> (issue 61).
			const inbox = await getPage(`${base}/inbox`, cookie);
			const shown = inbox.body.replace(/<!--[^>]*-->/g, '');
			expect(shown).toContain('Motivation: “<bdi>Say what you wrote.</bdi>”');
			expect(shown).toContain('<bdi>Which city?</bdi> “<bdi>Which');
			expect(inbox.body).not.toContain('<b>city</b>');

			const page = await getPage(`${base}/apply`, cookie);
			expect(page.body).toContain('href="#field-motivation"');
			expect(page.body).toContain('href="#field-answer-city"');
			// Each comment next to its field, tied to it by aria-describedby; markup stays text.
			expect(page.body).toMatch(/id="field-answer-city"[^>]*aria-describedby="field-answer-city-note/);
			expect(page.body).toMatch(
				/id="field-answer-city-note"[^>]*><strong>The reviewers ask:<\/strong> Which &lt;b>city/
			);
			expect(page.body).toMatch(/id="field-motivation"[\s\S]*?aria-describedby="field-motivation-note/);
			expect(page.body).not.toContain('<b>city</b>');

			const resent = await postForm(
				`${base}/apply`,
				{
					displayName: 'Ada',
					motivation: 'I write <i>docs</i> for DAOs every month',
					contact: '@ada',
					'answers.city': 'Berlin',
					'answers.about': 'Nothing'
				},
				{ cookie }
			);
			expect(resent.status).toBe(303);

			for (const path of [`/admin/applications/${id}`, `/review/${id}`]) {
				const shown = await getPage(`${base}${path}`, await login(admin));
				expect(shown.status).toBe(200);
				const text = textOf(shown.body);
				expect(text).toContain('What changed in the resubmission');
				// Markup between the parts leaves spaces in the text ("changed ; 1"): the words, not the spacing.
				expect(text).toMatch(/1 of 5 fields changed\s*;\s*1 asked about but not changed/);
				// Removed and added words marked, each named for screen readers (the space after the colon is
				// markup whitespace Svelte may trim). The diff is by word: "<i>", "docs" (kept) and "</i>".
				expect(shown.body).toMatch(/<del[^>]*><span[^>]*>\[removed:\s*<\/span>week<span/);
				expect(shown.body).toMatch(/<ins[^>]*><span[^>]*>\[added:\s*<\/span>&lt;i><span/);
				expect(shown.body).toMatch(/<ins[^>]*><span[^>]*>\[added:\s*<\/span>&lt;\/i>\s*<span/);
				expect(shown.body).toMatch(/<ins[^>]*><span[^>]*>\[added:\s*<\/span>month/);
				// The applicant's markup stays text.
				expect(shown.body).toContain('I write &lt;i>docs&lt;/i> for DAOs every month');
				expect(shown.body).not.toContain('<i>docs</i>');
				expect(text).toMatch(/Asked about, not changed: Which city\? : “Which <b>city<\/b> exactly\?”/);
				expect(shown.body).toMatch(/<details[^>]*><summary[^>]*>4 unchanged fields<\/summary>/);
			}
		},
		SLOW
	);

	it(
		'a reviewer suggests an ask with their vote; the admin sees it next to the answer',
		async () => {
			const { id } = await apply(newAccount());
			const cookie = await login(admin);
			const unknown = await postForm(
				`${base}/review/${id}?/vote`,
				{ vote: 'abstain', 'ask.hobby': 'Which?' },
				{ cookie }
			);
			expect(unknown.status).toBe(400);
			const voted = await postForm(
				`${base}/review/${id}?/vote`,
				{ vote: 'abstain', 'ask.city': 'Which district?' },
				{ cookie }
			);
			expect(voted.status).toBe(303);
			const [vote] = await portal.query<{ asks: unknown }>(
				`select asks from application_votes where application_id = '${id}'`
			);
			expect(vote!.asks).toEqual({ city: 'Which district?' });
			const page = textOf((await getPage(`${base}/admin/applications/${id}`, cookie)).body);
			expect(page).toMatch(/Which city\?\s*Berlin\s*Reviewer \S+ suggests: “\s*Which district\?\s*”/);
		},
		SLOW
	);

	it(
		'bulk: the same rules, all or nothing; the asks on every audit row',
		async () => {
			const [a, b] = [await apply(newAccount()), await apply(newAccount())];
			const cookie = await login(admin);
			const bulk = (fields: Record<string, string>) =>
				postForm(
					`${base}/admin?/bulk`,
					{ applicationIds: [a.id, b.id], field: 'review', to: 'needs_info', reason: '', ...fields },
					{ cookie }
				);
			const before = await portal.rowCounts();
			expect((await bulk({})).status).toBe(400);
			expect((await bulk({ 'ask.city': '' })).status).toBe(400);
			expect((await bulk({ 'ask.hobby': 'Which?' })).status).toBe(400);
			expect((await bulk({ 'ask.motivation': 'y'.repeat(501) })).status).toBe(400);
			expect((await bulk({ 'ask.city': 'Which?', reapplyAfter: day(3) })).status).toBe(400);
			expect(await portal.rowCounts()).toEqual(before);
			expect((await bulk({ 'ask.motivation': 'More, please.' })).status).toBe(303);
			for (const { id } of [a, b])
				expect(await eventsOf(id)).toEqual([
					{ to_state: 'needs_info', reason: null, asks: { motivation: 'More, please.' } }
				]);
		},
		SLOW
	);
});

describe('applying again after a rejection', () => {
	it(
		'refuses a date that is not from tomorrow to 365 days ahead, or with another move',
		async () => {
			const { id } = await apply(newAccount());
			for (const [to, date] of [
				['rejected', day(0)],
				['rejected', day(366)],
				['rejected', '2027-02-30'],
				['rejected', 'tomorrow'],
				['needs_info', day(5)]
			] as const) {
				const answer = await move(id, { to, reason: 'No', reapplyAfter: date, confirm: 'yes' });
				expect(answer.status, `${to} ${date}`).toBe(400);
				expect(textOf(answer.body)).toMatch(/Apply again from|A date to apply again goes only with/);
			}
			expect(await eventsOf(id)).toEqual([]);
		},
		SLOW
	);

	it(
		'stores the day, names it to the applicant, answers 409 reapply_later before it (limit spent, nothing written) and lets them apply after',
		async () => {
			const member = newAccount();
			const { cookie, id } = await apply(member);
			const date = day(30);
			const rejected = await move(id, { to: 'rejected', reason: 'Not now', reapplyAfter: date, confirm: 'yes' });
			expect(rejected.status).toBe(303);
			const [row] = await portal.query<{ day: string }>(
				`select to_char(reapply_after at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as day from applications where id = '${id}'`
			);
			expect(row!.day).toBe(`${date} 00:00:00`);

			const page = textOf((await getPage(`${base}/apply`, cookie)).body);
			const named = new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', {
				day: 'numeric',
				month: 'long',
				year: 'numeric',
				timeZone: 'UTC'
			});
			expect(page).toContain(`You can apply again from ${named}`);
			expect(textOf((await getPage(`${base}/inbox`, cookie)).body)).toContain(`You may apply again from ${named}.`);
			expect(page).not.toContain('whenever you like');
			expect(page).not.toContain('Submit application');

			const counter = () =>
				portal.query<{ count: number }>(
					`select count from rate_limit_counters where subject = '${member.address.toLowerCase()}' and action = 'submitApplication'`
				);
			const spent = (await counter())[0]!.count;
			const before = await portal.rowCounts();
			const fields = { displayName: 'Ada', motivation: 'Again', 'answers.city': 'Berlin' };
			const early = await postForm(`${base}/apply`, fields, { cookie: await login(member) });
			expect(early.status).toBe(409);
			expect(textOf(early.body)).toContain(`You can apply again from ${named} (${date})`);
			// The same refusal as the enhanced form reads it: its code.
			const json = await fetch(`${base}/apply`, {
				method: 'POST',
				body: new URLSearchParams(fields),
				headers: { origin: base, accept: 'application/json', 'x-sveltekit-action': 'true', cookie: await login(member) }
			});
			expect(await json.text()).toContain('reapply_later');
			expect(await portal.rowCounts()).toEqual(before);
			expect((await counter())[0]!.count).toBe(spent + 2);

			await portal.query(`update applications set reapply_after = now() - interval '1 second' where id = '${id}'`);
			expect(textOf((await getPage(`${base}/apply`, await login(member))).body)).toContain('whenever you like');
			expect((await postForm(`${base}/apply`, fields, { cookie: await login(member) })).status).toBe(303);
		},
		SLOW
	);

	it(
		'bulk: a rejection with the date stores it on every application',
		async () => {
			const [a, b] = [await apply(newAccount()), await apply(newAccount())];
			const answer = await postForm(
				`${base}/admin?/bulk`,
				{
					applicationIds: [a.id, b.id],
					field: 'review',
					to: 'rejected',
					reason: 'Full',
					reapplyAfter: day(10),
					confirm: 'yes'
				},
				{ cookie: await login(admin) }
			);
			expect(answer.status).toBe(303);
			const rows = await portal.query<{ day: string }>(
				`select to_char(reapply_after at time zone 'UTC', 'YYYY-MM-DD') as day from applications where id in ('${a.id}', '${b.id}')`
			);
			expect(rows.map((r) => r.day)).toEqual([day(10), day(10)]);
		},
		SLOW
	);
});
