import { readFileSync } from 'node:fs';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn, testAccount } from '../helpers/siwe';

// Each community its own application form (docs/decisions/0027-versioned-application-forms.md), through real HTTP on the
// built server without JavaScript; PGlite, or the Postgres server when TEST_DATABASE_URL is set.
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
	help?: string;
	options?: string;
	min?: string;
	max?: string;
	/** By locale: label, help and options (one a line), as the editor's Translations fields post them. */
	translations?: Record<string, { label?: string; help?: string; options?: string }>;
};

/** The editor's fields for these questions, as /admin/form posts them. */
function editorFields(questions: Q[]): Record<string, string> {
	const fields: Record<string, string> = { questionCount: String(questions.length) };
	questions.forEach((q, i) => {
		for (const [name, value] of Object.entries(q)) {
			if (name === 'translations') {
				for (const [locale, parts] of Object.entries(q.translations ?? {}))
					for (const [part, text] of Object.entries(parts))
						fields[`questions.${i}.translations.${locale}.${part}`] = text;
			} else if (name === 'required') {
				if (value) fields[`questions.${i}.required`] = 'on';
			} else if (typeof value !== 'object') fields[`questions.${i}.${name}`] = String(value);
		}
	});
	return fields;
}

const saveForm = async (questions: Q[]) =>
	postForm(`${base}/admin/form?/save`, editorFields(questions), { cookie: await login(admin) });

/** The version /admin/form says is current. */
async function currentVersion(): Promise<string> {
	const page = await getPage(`${base}/admin/form`, await login(admin));
	return /now version (\d+)/.exec(textOf(page.body))?.[1] ?? 'none';
}

async function applicationIdOf(account: PrivateKeyAccount): Promise<string> {
	const page = await getPage(`${base}/admin?sort=newest&q=${account.address}`, await login(admin));
	const match = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body);
	if (!match) throw new Error(`no application for ${account.address}`);
	return match[1]!;
}

const SEVEN: Q[] = [
	{
		key: 'group',
		label: 'Which working group?',
		type: 'single_choice',
		required: true,
		options: 'Docs\nInfra\nEvents'
	},
	{ key: 'link', label: 'Link to your work', type: 'url', required: true, help: 'A repository or a portfolio.' },
	{ key: 'city', label: 'Which city?', type: 'short_text' },
	{ key: 'coc', label: 'Have you read the code of conduct?', type: 'yes_no', required: true },
	{ key: 'about', label: 'Anything else?', type: 'long_text' },
	{ key: 'skills', label: 'Skills', type: 'multiple_choice', options: 'Rust\nSvelte\nSQL' },
	{ key: 'hours', label: 'Hours a week', type: 'number', min: '1', max: '40' }
];

const VALID = {
	displayName: 'Ada',
	motivation: 'Docs.',
	'answers.group': 'Docs',
	'answers.link': 'https://example.org/ada',
	'answers.coc': 'on'
};

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
	base = portal.url;
});
afterAll(() => portal?.stop());

describe('/admin/form', () => {
	it('is hidden from anyone not an admin, reading and saving alike', async () => {
		const cookie = await login(newAccount());
		expect((await getPage(`${base}/admin/form`, cookie)).status).toBe(404);
		expect((await postForm(`${base}/admin/form?/save`, editorFields(SEVEN), { cookie })).status).toBe(404);
		expect(await currentVersion()).toBe('none');
	});

	it('saves a form of the seven types as a new version; the page shows it back', async () => {
		const saved = await saveForm(SEVEN);
		expect(saved.status).toBe(303);
		expect(saved.location).toBe('/admin/form?saved');
		const page = await getPage(`${base}${saved.location}`, await login(admin));
		expect(textOf(page.body).match(/saved as a new version/gi)).toEqual(['Saved as a new version']);
		// Each question's type is the selected option, so a save without JavaScript keeps it.
		expect(page.body.match(/<option value="single_choice" selected/g)).toHaveLength(1);
		expect(page.body.match(/<option value="number" selected/g)).toHaveLength(1);
		for (const q of SEVEN) expect(page.body).toContain(`value="${q.key}"`);
		expect(await currentVersion()).toBe('1');
	});

	it.each([
		[
			'a duplicate key',
			[SEVEN[2]!, { ...SEVEN[2]!, label: 'Again' }],
			'questions.1.key',
			/used by an earlier question/
		],
		['a choice with one option', [{ ...SEVEN[0]!, options: 'Docs' }], 'questions.0.options', /2 to 20 options/],
		['min above max', [{ ...SEVEN[6]!, min: '50', max: '10' }], 'questions.0.min', /Minimum must not be above maximum/],
		[
			'a label of 300 characters',
			[{ ...SEVEN[2]!, label: 'x'.repeat(300) }],
			'questions.0.label',
			/at most 200 characters/
		],
		['a key that is not a key', [{ ...SEVEN[2]!, key: '__proto__' }], 'questions.0.key', /Key must start with a-z/],
		['an unknown type', [{ ...SEVEN[2]!, type: 'signature' }], 'questions.0.type', /Type must be one of/],
		['an empty label', [{ ...SEVEN[2]!, label: '   ' }], 'questions.0.label', /Label is required/],
		[
			'an option of 101 characters',
			[{ ...SEVEN[0]!, options: `a\n${'b'.repeat(101)}` }],
			'questions.0.options',
			/at most 100/
		]
	])('%s is a 400 naming the field, nothing saved', async (_, questions, field, message) => {
		const before = await currentVersion();
		const refused = await saveForm(questions);
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(message);
		// The message sits on its field (aria-describedby), and what was typed is shown back.
		expect(refused.body).toMatch(
			new RegExp(
				`name="${field.replace(/\./g, '\\.')}"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="${field.replace(/\./g, '\\.')}"`
			)
		);
		expect(await currentVersion()).toBe(before);
	});

	it('51 questions are one too many: 400, nothing saved', async () => {
		const many = Array.from({ length: 51 }, (_, i) => ({ key: `q${i}`, label: `Q${i}`, type: 'short_text' }));
		const refused = await saveForm(many);
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(/at most 50 questions/);
	});

	it('without JavaScript: add, move and retire come back as a draft, nothing saved', async () => {
		const before = await currentVersion();
		const cookie = await login(admin);
		const added = await postForm(
			`${base}/admin/form?/edit`,
			{ ...editorFields(SEVEN.slice(0, 2)), op: 'add', newType: 'number' },
			{ cookie }
		);
		expect(added.status).toBe(200);
		expect(added.body).toMatch(/name="questions\.2\.label"/);
		const moved = await postForm(
			`${base}/admin/form?/edit`,
			{ ...editorFields(SEVEN.slice(0, 2)), op: 'up:1' },
			{ cookie }
		);
		expect(moved.body.indexOf('value="link"')).toBeLessThan(moved.body.indexOf('value="group"'));
		const retired = await postForm(
			`${base}/admin/form?/edit`,
			{ ...editorFields(SEVEN.slice(0, 2)), op: 'retire:0' },
			{ cookie }
		);
		expect(retired.body).not.toContain('value="group"');
		const preview = await postForm(
			`${base}/admin/form?/edit`,
			{ ...editorFields(SEVEN.slice(0, 2)), op: 'preview' },
			{ cookie }
		);
		expect(textOf(preview.body)).toMatch(/Preview .*Which working group\?/);
		expect(await currentVersion()).toBe(before);
	});
});

describe('/apply with the community’s questions', () => {
	beforeAll(async () => {
		expect((await saveForm(SEVEN)).status).toBe(303);
	});

	it('renders each question with its control, label, help and required', async () => {
		const page = await getPage(`${base}/apply`, await login(newAccount()));
		const body = page.body;
		expect(body).toMatch(/<input[^>]*type="radio"[^>]*name="answers\.group"[^>]*value="Docs"[^>]*required/);
		expect(body).toMatch(/<input[^>]*name="answers\.link"[^>]*type="url"[^>]*required/);
		expect(textOf(body)).toContain('A repository or a portfolio.');
		expect(body).toMatch(/<input[^>]*type="checkbox"[^>]*name="answers\.coc"[^>]*required/);
		expect(body).toMatch(/<textarea[^>]*name="answers\.about"/);
		expect(body).toMatch(/<input[^>]*type="checkbox"[^>]*name="answers\.skills"[^>]*value="Svelte"/);
		expect(body).toMatch(/<input[^>]*name="answers\.hours"[^>]*type="number"[^>]*min="1"[^>]*max="40"/);
		expect(textOf(body)).toMatch(/Which city\? ?\(optional\)/);
	});

	it.each([
		['a required answer missing', { 'answers.link': '' }, 'answers.link', /Link to your work is required/],
		['a choice not among the options', { 'answers.group': 'Marketing' }, 'answers.group', /choose one of the options/],
		['a url that is not http(s)', { 'answers.link': 'javascript:alert(1)' }, 'answers.link', /http:\/\/ or https:\/\//],
		['short text over 200', { 'answers.city': 'x'.repeat(201) }, 'answers.city', /at most 200 characters/],
		['long text over 5000', { 'answers.about': 'x'.repeat(5001) }, 'answers.about', /at most 5000 characters/],
		['a number that is not one', { 'answers.hours': 'ten' }, 'answers.hours', /must be a number/],
		['a number outside min/max', { 'answers.hours': '41' }, 'answers.hours', /at most 40/],
		[
			'a multiple choice not among the options',
			{ 'answers.skills': ['Rust', 'Cobol'] },
			'answers.skills',
			/choose among the options/
		],
		['the required box not ticked', { 'answers.coc': '' }, 'answers.coc', /code of conduct\? is required/]
	])('%s: 400 on the field, typed values kept, nothing written', async (_, change, field, message) => {
		const member = newAccount();
		const cookie = await login(member);
		const refused = await postForm(`${base}/apply`, { ...VALID, 'answers.city': 'Lisbon <b>', ...change }, { cookie });
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(message);
		expect(refused.body).toMatch(
			new RegExp(
				`name="${field.replace('.', '\\.')}"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="${field.replace('.', '\\.')}"`
			)
		);
		if (field !== 'answers.city') expect(refused.body).toContain('value="Lisbon &lt;b>"');
		expect(refused.body).toContain('value="Ada"');
		const page = await getPage(`${base}/apply`, cookie);
		expect(textOf(page.body)).not.toMatch(/Waiting for review/);
	});

	it('stores typed answers (a multiple choice from repeated fields), ignores unknown keys, shows them as text', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const posted = await postForm(
			`${base}/apply`,
			{
				...VALID,
				'answers.city': '<script>alert(1)</script>',
				'answers.skills': ['Rust', 'SQL'],
				'answers.hours': '12.5',
				'answers.nope': 'ignored-field-value',
				'answers.__proto__': 'x',
				'answers.constructor': 'y'
			},
			{ cookie }
		);
		expect(posted.status).toBe(303);
		const mine = await getPage(`${base}/apply`, cookie);
		expect(textOf(mine.body)).toMatch(/Which working group\? Docs/);
		expect(textOf(mine.body)).toMatch(/Skills Rust; SQL/);
		expect(textOf(mine.body)).toMatch(/Hours a week 12\.5/);
		expect(mine.body).not.toContain('<script>alert(1)</script>');
		expect(mine.body).toContain('&lt;script>alert(1)&lt;/script>');
		const id = await applicationIdOf(member);
		const detail = await getPage(`${base}/admin/applications/${id}`, await login(admin));
		expect(textOf(detail.body)).toMatch(/Have you read the code of conduct\? Yes/);
		expect(detail.body).not.toContain('ignored-field-value');
		expect(detail.body).not.toContain('<script>alert(1)</script>');
	});
});

describe('versions, resubmission, search and CSV', () => {
	it('an edit of the form after submission leaves the older application reading as it was asked', async () => {
		expect((await saveForm(SEVEN)).status).toBe(303);
		const member = newAccount();
		const cookie = await login(member);
		expect((await postForm(`${base}/apply`, { ...VALID, 'answers.city': 'Porto' }, { cookie })).status).toBe(303);
		const renamed = SEVEN.map((q) => (q.key === 'city' ? { ...q, label: 'Where do you live?' } : q));
		expect((await saveForm(renamed)).status).toBe(303);
		const id = await applicationIdOf(member);
		const detail = textOf((await getPage(`${base}/admin/applications/${id}`, await login(admin))).body);
		expect(detail).toMatch(/Which city\? Porto/);
		expect(detail).not.toMatch(/Where do you live\?/);
		// A new applicant is asked the new label.
		expect(textOf((await getPage(`${base}/apply`, await login(newAccount()))).body)).toMatch(/Where do you live\?/);
	});

	it('a resubmission answers the current form, prefilled, and keeps the old answers in its revision', async () => {
		expect((await saveForm(SEVEN)).status).toBe(303);
		const member = newAccount();
		const cookie = await login(member);
		expect((await postForm(`${base}/apply`, { ...VALID, 'answers.city': 'Ghent' }, { cookie })).status).toBe(303);
		const id = await applicationIdOf(member);
		const asked = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'review', to: 'needs_info', reason: 'Which city exactly?' },
			{ cookie: await login(admin) }
		);
		expect(asked.status).toBe(303);
		const form = await getPage(`${base}/apply`, cookie);
		expect(form.body).toMatch(/name="answers\.city"[^>]*value="Ghent"/);
		expect(form.body).toMatch(/name="answers\.group"[^>]*value="Docs"[^>]*checked/);
		expect((await postForm(`${base}/apply`, { ...VALID, 'answers.city': 'Antwerp' }, { cookie })).status).toBe(303);
		const detail = textOf((await getPage(`${base}/admin/applications/${id}`, await login(admin))).body);
		expect(detail).toMatch(/As submitted .*Which city\? Antwerp/);
		expect(detail).toMatch(/Earlier versions \(1\).*Which city\? Ghent/);
	});

	it('the review table’s q finds text answers', async () => {
		const member = newAccount();
		const cookie = await login(member);
		expect((await postForm(`${base}/apply`, { ...VALID, 'answers.city': 'Zzyzx Springs' }, { cookie })).status).toBe(
			303
		);
		const id = await applicationIdOf(member);
		const found = await getPage(`${base}/admin?q=zzyzx%20spr`, await login(admin));
		expect(found.body).toContain(`/admin/applications/${id}`);
		// A question's key is not its answer: searching a key finds nothing by it.
		const byKey = await getPage(`${base}/admin?q=${encodeURIComponent('"city"')}`, await login(admin));
		expect(byKey.body).not.toContain(`/admin/applications/${id}`);
	});

	it('applications.csv has one column per question (its label), choices joined, formula cells neutralised', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const posted = await postForm(
			`${base}/apply`,
			{
				...VALID,
				'answers.city': '=HYPERLINK("http://evil")',
				'answers.skills': ['Rust', 'Svelte'],
				'answers.about': '<i>hi</i>'
			},
			{ cookie }
		);
		expect(posted.status).toBe(303);
		const csv = await getPage(`${base}/admin/applications.csv?q=${member.address}`, await login(admin));
		expect(csv.status).toBe(200);
		const [header, row] = csv.body.trim().split('\r\n');
		for (const q of SEVEN) expect(header).toContain(`"${q.label}"`);
		expect(row).toContain(`"'=HYPERLINK(""http://evil"")"`);
		expect(row).toContain('"Rust; Svelte"');
		expect(row).toContain('"<i>hi</i>"');
		expect(row).toContain('"Yes"');
	});
});

/** The error summary's entries for question 1: the id its link points at (after `field-questions-0-`), its text, the message. */
/** The summary's entries for question 1: the field's id, the link's words and what follows the link. */
const summaryOf = (body: string) =>
	[...body.matchAll(/<li>\s*<a href="#field-questions-0-([^"]+)">([\s\S]*?)<\/a>([\s\S]*?)<\/li>/g)].map(
		([, id, link, rest]) => [id, textOf(link!).trim(), textOf(rest!).trim().replace(/^: /, '')]
	);

describe('the community’s own words in the applicant’s language (docs/translations.md)', () => {
	const TRANSLATED: Q = {
		...SEVEN[0]!,
		translations: {
			es: { label: '¿Qué grupo de trabajo?', help: 'Elige uno.', options: 'Documentación\nInfraestructura\nEventos' }
		}
	};

	it('a translation that does not match the options in number is a 400 on its own field, nothing saved', async () => {
		const before = await currentVersion();
		const refused = await saveForm([{ ...TRANSLATED, translations: { es: { options: 'Documentación' } } }]);
		expect(refused.status).toBe(400);
		expect(refused.body).toMatch(/name="questions\.0\.translations\.es\.options"[^>]*aria-invalid="true"/);
		// The message names its field, so the entry is one link: the question, then the message (issue 61).
		expect(summaryOf(refused.body)).toEqual([
			['translations-es-options', expect.stringMatching(/^Question 1: Options \(Español\): give 3 lines/), '']
		]);
		// Two problems of one question: each summary entry names the question once and the field once: in the
		// link, or in the message after it (issue 61).
		const two = await saveForm([{ ...TRANSLATED, key: 'Group', translations: { es: { label: 'x'.repeat(201) } } }]);
		expect(two.status).toBe(400);
		const entries = summaryOf(two.body);
		expect(entries.map(([id]) => id)).toEqual(['key', 'translations-es-label']);
		for (const [, link, rest] of [...entries, ...summaryOf(refused.body)]) {
			const said = `${link}: ${rest}`;
			expect(said.match(/Question \d/g)).toHaveLength(1);
			expect(said.match(/Key|Label \(Español\)|Options \(Español\)/g), said).toHaveLength(1);
		}
		expect(await currentVersion()).toBe(before);
	});

	it('a translated label far over the limit is a 400 that keeps the builder, what was typed and a link to the field', async () => {
		const before = await currentVersion();
		const long = 'x'.repeat(5000);
		const typed: Q = {
			...TRANSLATED,
			label: 'Which working group, this year?',
			translations: { es: { ...TRANSLATED.translations!.es, label: long } }
		};
		const refused = await saveForm([typed, SEVEN[3]!]);
		expect(refused.status).toBe(400);
		// The editors are there with the draft as posted, not the saved version (issue 61).
		expect(refused.body).toMatch(/name="questions\.0\.label"[^>]*value="Which working group, this year\?"/);
		expect(refused.body).toMatch(/name="questions\.1\.label"[^>]*value="Have you read the code of conduct\?"/);
		expect(refused.body).toMatch(/name="questions\.0\.translations\.es\.help"[^>]*>Elige uno\.<\/textarea>/);
		expect(refused.body).toMatch(
			new RegExp(`name="questions\\.0\\.translations\\.es\\.label"[^>]*value="${long}"[^>]*aria-invalid="true"`)
		);
		// The summary links the refused field, named by its question and language.
		const id = 'field-questions-0-translations-es-label';
		expect(summaryOf(refused.body)).toContainEqual([
			'translations-es-label',
			'Question 1: Label (Español)',
			'At most 1000 characters here.'
		]);
		expect(refused.body).toContain(`id="${id}"`);
		expect(await currentVersion()).toBe(before);
	});

	it('is saved with the form version, shown in Spanish on /es/apply, and the translated choice stores the original option', async () => {
		expect((await saveForm([TRANSLATED, SEVEN[3]!])).status).toBe(303);
		const editor = await getPage(`${base}/admin/form`, await login(admin));
		expect(editor.body).toMatch(/name="questions\.0\.translations\.es\.label"[^>]*value="¿Qué grupo de trabajo\?"/);
		// On the Arabic builder the words an admin writes, in any language, keep their own direction (issue 61);
		// the key, a code of Latin letters and digits, reads left to right.
		const arabic = (await getPage(`${base}/ar/admin/form`, await login(admin))).body;
		const field = (name: string) =>
			new RegExp(`<(?:input|textarea)[^>]*name="${name.replaceAll('.', '\\.')}"[^>]*>`).exec(arabic)?.[0] ?? '';
		for (const name of [
			'questions.0.label',
			'questions.0.help',
			'questions.0.options',
			'questions.0.translations.es.label',
			'questions.0.translations.es.help',
			'questions.0.translations.es.options',
			'questions.1.showIfEquals'
		])
			expect(field(name), name).toContain('dir="auto"');
		expect(field('questions.0.key')).toMatch(/^<input/);
		expect(field('questions.0.key')).toContain('dir="ltr"');

		const member = newAccount();
		const cookie = await login(member);
		const spanish = await getPage(`${base}/es/apply`, cookie);
		expect(spanish.status).toBe(200);
		const text = textOf(spanish.body);
		expect(text).toContain('¿Qué grupo de trabajo?');
		expect(text).toContain('Elige uno.');
		expect(text).toContain('Documentación');
		expect(text).not.toContain('Which working group?');
		// Each radio reads the Spanish text (isolated in its own direction) but sends the original option.
		expect(spanish.body).toMatch(
			/<input[^>]*type="radio"[^>]*name="answers\.group"[^>]*value="Docs"[^>]*>(?:\s*<!--[^>]*-->)*\s*<bdi>Documentación<\/bdi>/
		);
		// A question without a translation reads as written.
		expect(text).toContain('Have you read the code of conduct?');
		// The English page still reads the originals.
		const english = textOf((await getPage(`${base}/apply`, await login(newAccount()))).body);
		expect(english).toContain('Which working group?');
		expect(english).not.toContain('Documentación');

		const posted = await postForm(
			`${base}/es/apply`,
			{ displayName: 'Ana', motivation: 'Documentación.', 'answers.group': 'Docs', 'answers.coc': 'on' },
			{ cookie }
		);
		expect(posted.status).toBe(303);
		const id = await applicationIdOf(member);
		const detail = textOf((await getPage(`${base}/admin/applications/${id}`, await login(admin))).body);
		expect(detail).toMatch(/Which working group\? Docs/);
		// The translated text is not an option: refused, as any text that is not one.
		const other = newAccount();
		const refused = await postForm(
			`${base}/es/apply`,
			{ displayName: 'Bea', motivation: 'x', 'answers.group': 'Documentación', 'answers.coc': 'on' },
			{ cookie: await login(other) }
		);
		expect(refused.status).toBe(400);
		expect(refused.body).toMatch(/name="answers\.group"[^>]*aria-invalid="true"/);
	});

	/** What `locale` says for the plain message `key` (messages/<locale>.json). */
	const say = (locale: string, key: string) =>
		(JSON.parse(readFileSync(`messages/${locale}.json`, 'utf8')) as Record<string, string>)[key]!;
	const ANA = {
		displayName: 'Ana',
		motivation: 'Documentación.',
		'answers.group': 'Docs',
		'answers.link': 'https://example.org/ana',
		'answers.coc': 'on'
	};
	/** A text as the page writes it, whatever hydration markers Svelte puts around it. */
	const marked = (text: string) => `(?:<!--[^>]*-->)*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:<!--[^>]*-->)*`;
	const inTag = (tag: string, text: string) => new RegExp(`<${tag}>${marked(text)}</${tag}>`);

	it('the applicant reads back in their language: their answers, an ask about a question, their resubmission', async () => {
		expect((await saveForm([TRANSLATED, SEVEN[1]!, SEVEN[3]!])).status).toBe(303);
		const member = newAccount();
		const cookie = await login(member);
		expect((await postForm(`${base}/es/apply`, ANA, { cookie })).status).toBe(303);
		const mine = await getPage(`${base}/es/apply`, cookie);
		expect(textOf(mine.body)).toMatch(/¿Qué grupo de trabajo\? Documentación/);
		expect(textOf(mine.body)).not.toContain('Which working group?');
		// A link answer is a link; the applicant's text keeps its own direction.
		expect(mine.body).toMatch(/<a href="https:\/\/example\.org\/ana" dir="auto"[^>]*>https:\/\/example\.org\/ana<\/a>/);
		expect(mine.body).toMatch(inTag('bdi', 'Ana'));

		const id = await applicationIdOf(member);
		const detail = await getPage(`${base}/admin/applications/${id}`, await login(admin));
		expect(detail.body).toMatch(/<a href="https:\/\/example\.org\/ana" dir="auto"/);
		expect(detail.body).toMatch(inTag('bdi', 'Ana'));
		const asked = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'review', from: 'pending', to: 'needs_info', reason: '', 'ask.group': '¿Cuál exactamente?' },
			{ cookie: await login(admin) }
		);
		expect(asked.status).toBe(303);
		// The notification names the question as the community translated it.
		// (The label and the comment each in a <bdi> of its own, issue 61.)
		const inbox = (await getPage(`${base}/es/inbox`, cookie)).body.replace(/<!--[^>]*-->/g, '');
		expect(inbox).toContain('<bdi>¿Qué grupo de trabajo?</bdi> «<bdi>¿Cuál exactamente?</bdi>»');
		expect(inbox).not.toContain('Which working group?');

		expect((await postForm(`${base}/es/apply`, { ...ANA, 'answers.group': 'Infra' }, { cookie })).status).toBe(303);
		const after = textOf((await getPage(`${base}/es/apply`, cookie)).body);
		expect(after).toContain(say('es', 'application_history_resubmitted'));
		expect(after).not.toContain('resubmitted');
	});

	it('a refused /apply lists every refused field, display name and motivation included, each a link to it', async () => {
		expect((await saveForm([TRANSLATED, SEVEN[1]!, SEVEN[3]!])).status).toBe(303);
		const refused = await postForm(
			`${base}/es/apply`,
			{ displayName: '', motivation: '', 'answers.group': '', 'answers.link': 'ftp://x' },
			{ cookie: await login(newAccount()) }
		);
		expect(refused.status).toBe(400);
		const alert = /<div[^>]*role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(refused.body)?.[1] ?? '';
		for (const [id, label] of [
			['field-displayName', say('es', 'field_display_name')],
			['field-motivation', say('es', 'field_motivation')],
			['field-answer-group', '¿Qué grupo de trabajo?'],
			['field-answer-link', 'Link to your work'],
			['field-answer-coc', 'Have you read the code of conduct?']
		]) {
			// The field's name set apart in its own direction (<bdi>) inside the link.
			expect(alert, id).toMatch(new RegExp(`<a href="#${id}"><bdi>${marked(label!)}</bdi></a>`));
			expect(refused.body, id).toContain(`id="${id}"`);
		}
	});

	it('a refused vote on /review/[id] lists every refused field as a link to it', async () => {
		expect((await saveForm([TRANSLATED, SEVEN[1]!, SEVEN[3]!])).status).toBe(303);
		const member = newAccount();
		expect((await postForm(`${base}/es/apply`, ANA, { cookie: await login(member) })).status).toBe(303);
		const id = await applicationIdOf(member);
		const refused = await postForm(
			`${base}/review/${id}?/vote`,
			{ vote: 'reject', comment: '', 'ask.group': 'x'.repeat(501) },
			{ cookie: await login(admin) }
		);
		expect(refused.status).toBe(400);
		const alert = /<div[^>]*role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(refused.body)?.[1] ?? '';
		expect(alert).toMatch(/<a href="#ask-group">/);
		expect(alert).toMatch(/<a href="#vote-comment"><bdi>Comment<\/bdi><\/a>/);
		expect(refused.body).toContain('id="ask-group"');
		expect(refused.body).toContain('id="vote-comment"');
	});
});
