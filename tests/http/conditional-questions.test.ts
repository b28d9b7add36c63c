import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn, testAccount } from '../helpers/siwe';

// Conditional questions (#58, docs/application-form.md "Show only if") through real HTTP on the built server
// without JavaScript: the builder refuses a condition that cannot hold, /apply shows every question with its
// condition, and the server drops a hidden question's answer and does not require it. PGlite, or Postgres
// when TEST_DATABASE_URL is set.
const admin = testAccount('admin');
const newAccount = () => privateKeyToAccount(generatePrivateKey());

let portal: OwnDatabasePortal;
let base: string;
const login = (account: PrivateKeyAccount) => signIn(base, account);

type Q = {
	key: string;
	label: string;
	type: string;
	required?: boolean;
	options?: string;
	showIfKey?: string;
	showIfEquals?: string;
};

/** The editor's fields for these questions, as /admin/form posts them. */
function editorFields(questions: Q[]): Record<string, string> {
	const fields: Record<string, string> = { questionCount: String(questions.length) };
	questions.forEach((q, i) => {
		for (const [name, value] of Object.entries(q)) {
			if (name === 'required') {
				if (value) fields[`questions.${i}.required`] = 'on';
			} else fields[`questions.${i}.${name}`] = String(value);
		}
	});
	return fields;
}
const saveForm = async (questions: Q[]) =>
	postForm(`${base}/admin/form?/save`, editorFields(questions), { cookie: await login(admin) });
async function currentVersion(): Promise<string> {
	const page = await getPage(`${base}/admin/form`, await login(admin));
	return /now version (\d+)/.exec(textOf(page.body))?.[1] ?? 'none';
}
/** The answers stored for this applicant's application. */
async function storedAnswers(account: PrivateKeyAccount): Promise<unknown> {
	const rows = await portal.query<{ answers: unknown }>(
		`select answers from applications where lower(applicant_address) = '${account.address.toLowerCase()}'`
	);
	expect(rows).toHaveLength(1);
	return rows[0]!.answers;
}

const FORM: Q[] = [
	{ key: 'role', label: 'Your role', type: 'single_choice', required: true, options: 'Student\nWorker' },
	{
		key: 'school',
		label: 'Your school',
		type: 'short_text',
		required: true,
		showIfKey: 'role',
		showIfEquals: 'Student'
	},
	{ key: 'year', label: 'Year of study', type: 'number', required: true, showIfKey: 'school', showIfEquals: 'MIT' },
	{ key: 'coc', label: 'Read the code of conduct?', type: 'yes_no' },
	{ key: 'why', label: 'Why not?', type: 'long_text', required: true, showIfKey: 'coc', showIfEquals: 'false' }
];
const BASE = { displayName: 'Ada', motivation: 'Docs.' };

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
	base = portal.url;
});
afterAll(() => portal?.stop());

describe('/admin/form: “Show only if”', () => {
	it.each([
		['a later question', 0, { showIfKey: 'coc', showIfEquals: 'true' }, 'showIfKey', /Question 1: .*earlier question/],
		['a missing key', 1, { showIfKey: 'nope' }, 'showIfKey', /Question 2: .*“nope”, which is not a question/],
		['itself', 1, { showIfKey: 'school' }, 'showIfKey', /Question 2: .*cannot name the question itself/],
		[
			'a value not among the options',
			1,
			{ showIfEquals: 'Retired' },
			'showIfEquals',
			/Question 2: .*options of “Your role”/
		],
		['a yes/no value that is not one', 4, { showIfEquals: 'maybe' }, 'showIfEquals', /Question 5: .*Yes or No/],
		[
			'a number value that is not one',
			2,
			{ showIfKey: 'role', showIfEquals: 'x' },
			'showIfEquals',
			/Question 3: .*options/
		]
	])('%s is a 400 naming the question and field, nothing saved', async (_, at, change, field, message) => {
		const before = await currentVersion();
		const refused = await saveForm(FORM.map((q, i) => (i === at ? { ...q, ...change } : q)));
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(message);
		const name = `questions\\.${at}\\.${field}`;
		expect(refused.body).toMatch(
			new RegExp(`name="${name}"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="${name}"`)
		);
		// The page's summary links to the refused field, which carries that id (issue 61).
		const id = `field-questions-${at}-${field}`;
		expect(refused.body).toContain(`href="#${id}"`);
		expect(refused.body).toContain(`id="${id}"`);
		expect(await currentVersion()).toBe(before);
	});

	it("a refused translation is a link in the page's summary to its field, named by its language", async () => {
		const before = await currentVersion();
		const fields = { ...editorFields(FORM), 'questions.0.translations.es.label': 'x'.repeat(201) };
		const refused = await postForm(`${base}/admin/form?/save`, fields, { cookie: await login(admin) });
		expect(refused.status).toBe(400);
		const id = 'field-questions-0-translations-es-label';
		expect(refused.body).toMatch(new RegExp(`<a href="#${id}"[^>]*>(?:<bdi>)?[^<]*Question 1: [^<]*Español`));
		expect(refused.body).toContain(`id="${id}"`);
		expect(await currentVersion()).toBe(before);
	});

	it('a control character in the value is refused before anything else reads the draft, nothing saved', async () => {
		const before = await currentVersion();
		const refused = await saveForm(FORM.map((q, i) => (i === 1 ? { ...q, showIfEquals: 'Stu\u0007dent' } : q)));
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(/Remove the control characters/);
		expect(await currentVersion()).toBe(before);
	});

	it('saves the conditions and shows them back in the editor', async () => {
		expect((await saveForm(FORM)).status).toBe(303);
		const page = await getPage(`${base}/admin/form`, await login(admin));
		// The condition's question is the selected option of an earlier question; a choice's value a select of its options.
		expect(page.body).toMatch(/name="questions\.1\.showIfKey"[^>]*>[^]*?<option value="role" selected/);
		expect(page.body).toMatch(/name="questions\.1\.showIfEquals"[^>]*>[^]*?<option value="Student" selected/);
		expect(page.body).toMatch(/name="questions\.4\.showIfEquals"[^>]*>[^]*?<option value="false" selected/);
		expect(page.body).toMatch(/name="questions\.2\.showIfEquals"[^>]*value="MIT"/);
		// A question's own and later questions are not offered.
		const first = /name="questions\.1\.showIfKey"[^>]*>([^]*?)<\/select>/.exec(page.body)?.[1] ?? '';
		expect(first).not.toContain('value="school"');
		expect(first).not.toContain('value="coc"');
		const rows = await portal.query<{ questions: { key: string; showIf?: unknown }[] }>(
			'select questions from application_forms order by id desc limit 1'
		);
		expect(rows[0]!.questions.map((q) => q.showIf ?? null)).toEqual([
			null,
			{ key: 'role', equals: 'Student' },
			{ key: 'school', equals: 'MIT' },
			null,
			{ key: 'coc', equals: false }
		]);
	});
});

describe('/apply with conditional questions', () => {
	beforeAll(async () => {
		expect((await saveForm(FORM)).status).toBe(303);
	});

	it('without JavaScript shows every question, each conditional one with its condition', async () => {
		const page = await getPage(`${base}/apply`, await login(newAccount()));
		const text = textOf(page.body);
		for (const q of FORM) expect(page.body).toContain(`name="answers.${q.key}"`);
		expect(text).toContain('Answer only if your answer to “Your role” is “Student”.');
		expect(text).toContain('Answer only if your answer to “Your school” is “MIT”.');
		expect(text).toContain('Answer only if your answer to “Read the code of conduct?” is “No”.');
		expect(page.body).not.toMatch(/<fieldset[^>]*class="shown-if[^"]*"[^>]*(hidden|disabled)/);
	});

	it('a hidden required question is not required, and answers posted for hidden ones are dropped', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const posted = await postForm(
			`${base}/apply`,
			{
				...BASE,
				'answers.role': 'Worker',
				'answers.school': 'Hogwarts',
				'answers.year': 'not a number',
				'answers.coc': 'on',
				'answers.why': 'x'.repeat(6000)
			},
			{ cookie }
		);
		expect(posted.status).toBe(303);
		expect(await storedAnswers(member)).toEqual({ role: 'Worker', coc: true });
		const mine = textOf((await getPage(`${base}/apply`, cookie)).body);
		expect(mine).not.toContain('Hogwarts');
	});

	it('a shown question is checked and kept as ever, down a chain', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const student = { ...BASE, 'answers.role': 'Student', 'answers.coc': 'on' };
		const noSchool = await postForm(`${base}/apply`, student, { cookie });
		expect(noSchool.status).toBe(400);
		expect(textOf(noSchool.body)).toMatch(/Your school is required/);
		expect(noSchool.body).toMatch(/name="answers\.school"[^>]*aria-invalid="true"/);
		const noYear = await postForm(`${base}/apply`, { ...student, 'answers.school': 'MIT' }, { cookie });
		expect(noYear.status).toBe(400);
		expect(textOf(noYear.body)).toMatch(/Year of study is required/);
		const ok = await postForm(
			`${base}/apply`,
			{ ...student, 'answers.school': 'MIT', 'answers.year': '3' },
			{ cookie }
		);
		expect(ok.status).toBe(303);
		expect(await storedAnswers(member)).toEqual({ role: 'Student', school: 'MIT', year: 3, coc: true });
	});

	it('an unticked box shows the question asked only then: required, and kept', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const worker = { ...BASE, 'answers.role': 'Worker' };
		const refused = await postForm(`${base}/apply`, worker, { cookie });
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(/Why not\? is required/);
		expect((await postForm(`${base}/apply`, { ...worker, 'answers.why': 'Later.' }, { cookie })).status).toBe(303);
		expect(await storedAnswers(member)).toEqual({ role: 'Worker', coc: false, why: 'Later.' });
	});
});
