import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNonces } from '../helpers/csp';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// Through real HTTP on the built server (`npm run build` first), without JavaScript: plain form posts.
const admin = testAccount('admin');
const limitAdmin = privateKeyToAccount(generatePrivateKey());
const newAccount = () => privateKeyToAccount(generatePrivateKey());
const txHash = (n: number) => `0x${n.toString(16).padStart(64, 'a')}`;

let server: RunningServer;
let base: string;

/** A fresh session for `account`: no test relies on a session another test opened. */
const login = (account: PrivateKeyAccount): Promise<string> => signIn(base, account);

/** The id of the member's newest application, read from the admin table's search by address. */
async function applicationIdOf(account: PrivateKeyAccount): Promise<string> {
	const page = await getPage(`${base}/admin?sort=newest&q=${account.address}`, await login(admin));
	const match = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body);
	if (!match) throw new Error(`no application for ${account.address}`);
	return match[1]!;
}

/** The admin page of one application. */
const detailOf = async (id: string, cookie?: string) =>
	getPage(`${base}/admin/applications/${id}`, cookie ?? (await login(admin)));

beforeAll(async () => {
	server = await startServer({ env: { ADMIN_ADDRESSES: [admin.address, limitAdmin.address].join(',') } });
	base = server.url;
});
afterAll(() => server?.stop());

describe('signed out', () => {
	it.each(['/apply', '/checkin'])('GET %s answers 401 with a sign-in prompt linking /setup', async (path) => {
		const page = await getPage(base + path);
		expect(page.status).toBe(401);
		// The prompt links /setup, which sends the member back here after sign-in (docs/pages-and-forms.md).
		expect(page.body).toMatch(/<a [^>]*href="\/setup(\?next=[^"]*)?"/);
		expect(textOf(page.body)).toMatch(/Sign in/);
	});

	it.each([
		['/apply', { displayName: 'Ada', motivation: 'Hi' }],
		['/checkin', { note: 'hello' }]
	])('a form post to %s without a member answers 401 with the prompt', async (path, fields) => {
		const page = await postForm(base + path, fields);
		expect(page.status).toBe(401);
		expect(page.body).toMatch(/href="\/setup(\?next=[^"]*)?"/);
		expect(textOf(page.body)).toContain('Sign in with your wallet to continue.');
		// In Arabic on the Arabic page (issue 61), its sign-in link kept under /ar.
		const ar = await postForm(`${base}/ar${path}`, fields);
		expect(ar.status).toBe(401);
		expect(textOf(ar.body)).toContain('سجّل الدخول بمحفظتك للمتابعة.');
		expect(ar.body).toMatch(/href="\/ar\/setup(\?next=[^"]*)?"/);
	});
});

describe('/apply', () => {
	it('submits an application (303 back to /apply), then shows it with its three states and no form', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const empty = await getPage(`${base}/apply`, cookie);
		expect(empty.status).toBe(200);
		expect(empty.body).toMatch(/<form method="POST"/);
		expect(empty.body).toMatch(/<label for="[^"]+"[^>]*>(?:<!--[^>]*-->)*Display name/);

		const posted = await postForm(
			`${base}/apply`,
			{ displayName: 'Ada Lovelace', motivation: 'Docs & tests.', contact: '@ada' },
			{ cookie }
		);
		expect(posted.status).toBe(303);
		expect(posted.location).toBe('/apply?done=submitted');
		// Without scripts the page the post is sent back to says it was received, as the enhanced form does.
		const back = textOf((await getPage(`${base}${posted.location}`, cookie)).body);
		expect(back).toContain('Thank you: your application was received.');

		const page = await getPage(`${base}/apply`, cookie);
		const text = textOf(page.body);
		expect(text).not.toContain('Thank you: your application was received.');
		expect(text).toContain('Ada Lovelace');
		expect(text).toContain('Docs & tests.');
		expect(text).toMatch(/Waiting for review/);
		// The on-chain steps stay out of sight until the review is approved.
		expect(text).not.toMatch(/Allowlist/);
		expect(text).not.toMatch(/Token distribution/);
		// No form to apply with: the page's one POST form is the withdrawal's (issue 58), beside the header's sign-out.
		expect((page.body.match(/<form method="POST"[^>]*>/g) ?? []).map((f) => /action="([^"]*)"/.exec(f)?.[1])).toEqual([
			'/api/auth/logout',
			'?/withdraw'
		]);

		const again = await postForm(`${base}/apply`, { displayName: 'Ada 2', motivation: 'Again' }, { cookie });
		expect(again.status).toBe(409);
		expect(textOf(again.body)).toMatch(/already have an application/);
	});

	it('bad input answers 400 with a message for the field, keeps what was typed, and writes nothing', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const page = await postForm(
			`${base}/apply`,
			{ displayName: '', motivation: 'Kept <b>as typed</b>', contact: 'x'.repeat(201) },
			{ cookie }
		);
		expect(page.status).toBe(400);
		const text = textOf(page.body);
		expect(text).toContain('Display name is required.');
		expect(text).toContain('Contact must be at most 200 characters.');
		expect(page.body).toContain('Kept &lt;b>as typed&lt;/b>');
		expect(page.body).toMatch(/aria-invalid="true"/);
		expect(textOf((await getPage(`${base}/apply`, cookie)).body)).not.toMatch(/Review:/);
	});

	it.each([
		['displayName', { displayName: 'Ada\u0007' }, /Display name must not contain control characters/],
		['displayName', { displayName: 'x'.repeat(81) }, /Display name must be at most 80 characters/],
		['displayName', { displayName: ['Ada', 'Bob'] }, /Display name must be text/],
		['displayName', { displayName: new Blob(['Ada']) }, /Display name must be text/],
		['motivation', { motivation: '' }, /Motivation is required/],
		['motivation', { motivation: 'x'.repeat(2001) }, /Motivation must be at most 2000 characters/],
		['motivation', { motivation: 'a\u0000b' }, /Motivation must not contain control characters/],
		['contact', { contact: 'line\nbreak' }, /Contact must not contain control characters or line breaks/]
	])('%s: %j → 400 with its message, nothing written', async (_, change, message) => {
		const member = newAccount();
		const cookie = await login(member);
		const page = await postForm(
			`${base}/apply`,
			{ displayName: 'Ada', motivation: 'Hi', contact: '', ...change },
			{ cookie }
		);
		expect(page.status).toBe(400);
		expect(textOf(page.body)).toMatch(message);
		expect(textOf((await getPage(`${base}/apply`, cookie)).body)).not.toMatch(/Review:/);
	});

	it('the 6th submission in 24 hours answers 429, says when to try again, and is not processed', async () => {
		const member = newAccount();
		const cookie = await login(member);
		for (let i = 0; i < 5; i++)
			expect((await postForm(`${base}/apply`, { displayName: '' }, { cookie })).status).toBe(400);
		const page = await postForm(`${base}/apply`, { displayName: 'Sixth', motivation: 'Valid this time' }, { cookie });
		expect(page.status).toBe(429);
		expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(86_000);
		expect(textOf(page.body)).toMatch(
			/limit of 5 applications in 24 hours\. You can try again in (23 hours 59 minutes|24 hours)/
		);
		expect(textOf((await getPage(`${base}/apply`, cookie)).body)).not.toContain('Sixth');
	});

	it('after needs_info the form comes back with the reviewers’ question; a resubmission returns review to pending', async () => {
		const member = newAccount();
		const cookie = await login(member);
		expect(
			(await postForm(`${base}/apply`, { displayName: 'Grace', motivation: 'First try' }, { cookie })).status
		).toBe(303);
		const id = await applicationIdOf(member);
		const asked = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'review', to: 'needs_info', reason: 'Which project?' },
			{ cookie: await login(admin) }
		);
		expect(asked.status).toBe(303);

		const page = await getPage(`${base}/apply`, cookie);
		expect(textOf(page.body)).toMatch(/The reviewers asked:? Which project\?/);
		expect(page.body).toMatch(/<form method="POST"/);
		expect(page.body).toContain('First try');

		expect(
			(await postForm(`${base}/apply`, { displayName: 'Grace H.', motivation: 'The compiler.' }, { cookie })).status
		).toBe(303);
		const after = textOf((await getPage(`${base}/apply`, cookie)).body);
		expect(after).toContain('Grace H.');
		expect(after).toMatch(/Waiting for review/);
		expect(after).toMatch(
			/Review: More information asked → Waiting for review .{0,40} by you Sent again with changes\./
		);
	});

	it('after a rejection the member may apply again, and sees the earlier application', async () => {
		const member = newAccount();
		const cookie = await login(member);
		expect((await postForm(`${base}/apply`, { displayName: 'Linus', motivation: 'Kernel' }, { cookie })).status).toBe(
			303
		);
		const id = await applicationIdOf(member);
		expect(
			(
				await postForm(
					`${base}/admin?/transition`,
					{ applicationId: id, field: 'review', to: 'rejected', reason: 'Not now' },
					{ cookie: await login(admin) }
				)
			).status
		).toBe(303);
		const page = await getPage(`${base}/apply`, cookie);
		expect(textOf(page.body)).toMatch(/Apply again/);
		expect((await postForm(`${base}/apply`, { displayName: 'Linus T.', motivation: 'Git' }, { cookie })).status).toBe(
			303
		);
		const after = textOf((await getPage(`${base}/apply`, cookie)).body);
		expect(after).toMatch(/Linus T\..*Waiting for review/);
		expect(after).toMatch(/Earlier applications Linus .* Rejected/);
	});
});

describe('/checkin', () => {
	it('checks in (303 back), shows recent check-ins; the 21st in 24 hours answers 429 and is not written', async () => {
		const member = newAccount();
		const cookie = await login(member);
		const first = await postForm(`${base}/checkin`, { note: 'At the meetup' }, { cookie });
		expect(first.status).toBe(303);
		expect(first.location).toBe('/checkin');
		expect(textOf((await getPage(`${base}/checkin`, cookie)).body)).toContain('At the meetup');

		const bad = await postForm(`${base}/checkin`, { note: 'x'.repeat(281) }, { cookie });
		expect(bad.status).toBe(400);
		expect(textOf(bad.body)).toContain('Note must be at most 280 characters.');

		for (let i = 2; i < 20; i++)
			expect((await postForm(`${base}/checkin`, { note: `#${i}` }, { cookie })).status).toBe(303);
		const over = await postForm(`${base}/checkin`, { note: 'one too many' }, { cookie });
		expect(over.status).toBe(429);
		expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(86_000);
		expect(textOf(over.body)).toMatch(/limit of 20 check-ins in 24 hours\. You can try again in/);
		// Over the limit, the limit answers first, whatever the note.
		expect((await postForm(`${base}/checkin`, { note: 'x'.repeat(281) }, { cookie })).status).toBe(429);
		const page = await getPage(`${base}/checkin`, cookie);
		expect(textOf(page.body)).not.toContain('one too many');
		expect(page.body.match(/<time /g)?.length).toBe(19);
	});
});

describe('/admin', () => {
	/** A new member's pending application, as each test's own subject. */
	async function pendingApplication(): Promise<{ applicant: PrivateKeyAccount; id: string }> {
		const applicant = newAccount();
		expect(
			(
				await postForm(
					`${base}/apply`,
					{ displayName: 'Katherine', motivation: 'Orbits' },
					{ cookie: await login(applicant) }
				)
			).status
		).toBe(303);
		return { applicant, id: await applicationIdOf(applicant) };
	}

	it('lists applications in the table with filters and search; the application page offers the moves permitted now', async () => {
		const { applicant, id } = await pendingApplication();
		const page = await getPage(`${base}/admin?q=${applicant.address.slice(2, 12).toUpperCase()}`, await login(admin));
		expect(page.status).toBe(200);
		const text = textOf(page.body);
		expect(text).toMatch(
			/Katherine 0x[0-9a-f]{4}…[0-9a-f]{4} Orbits Waiting for review Not started Not started \d+ min 0/
		);
		expect(page.body).toContain(`title="${applicant.address.toLowerCase()}"`);
		for (const label of ['Search', 'Allowlist', 'Token distribution', 'Order'])
			expect(page.body).toMatch(new RegExp(`<label[^>]*>\\s*${label}`));
		expect(text).toMatch(/All 1 Waiting for review 1 More information asked 0 Approved 0 Rejected 0/);
		expect(page.body).toContain(`href="/admin/applications/${id}"`);
		const detail = await detailOf(id);
		expect(detail.status).toBe(200);
		expect(textOf(detail.body)).toMatch(/Katherine .*Orbits/);
		expect(detail.body).toContain(applicant.address.toLowerCase());
		expect(detail.body).toMatch(/<button[^>]*name="to" value="approved"/);
		expect(detail.body).toMatch(/<button[^>]*name="to" value="needs_info"/);
		expect(detail.body).toMatch(/<button[^>]*name="to" value="rejected"/);
		expect(detail.body).not.toMatch(/name="to" value="added"/);
		expect(page.body).toContain('href="/admin/allowlist.csv"');
		const filtered = await getPage(
			`${base}/admin?review=approved&q=${applicant.address.slice(2, 12)}`,
			await login(admin)
		);
		expect(textOf(filtered.body)).not.toContain('Katherine');
	});

	it('approves, refuses a stale repeat (409), records the allowlist step with a tx hash linked to Polygonscan; the CSV follows', async () => {
		const { applicant, id } = await pendingApplication();
		const cookie = await login(admin);
		const approve = await postForm(
			`${base}/admin?/transition&review=pending&page=1`,
			{ applicationId: id, field: 'review', to: 'approved', from: 'pending', reason: '', txHash: '' },
			{ cookie }
		);
		expect(approve.status).toBe(303);
		expect(approve.location).toBe('/admin?review=pending&page=1');

		const again = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'review', to: 'rejected', from: 'pending', reason: 'x' },
			{ cookie }
		);
		expect(again.status).toBe(409);
		expect(textOf(again.body)).toMatch(/changed meanwhile and is now approved/);

		const csv = await fetch(`${base}/admin/allowlist.csv`, { headers: { cookie } });
		expect(csv.status).toBe(200);
		expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
		expect(csv.headers.get('content-disposition')).toMatch(
			/attachment; filename="allowlist-pending-\d{4}-\d{2}-\d{2}\.csv"/
		);
		const lines = (await csv.text()).trim().split('\r\n');
		expect(lines[0]).toBe('"address","display_name","contact","application_id","applied_at"');
		expect(lines.some((l) => l.startsWith(`"${applicant.address.toLowerCase()}","Katherine","","${id}",`))).toBe(true);

		// From the application's own page: the message next to the field and what was typed kept.
		const badHash = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'allowlist', to: 'added', txHash: '0x1234' },
			{ cookie }
		);
		expect(badHash.status).toBe(400);
		expect(textOf(badHash.body)).toContain('Transaction hash must be 0x followed by 64 hexadecimal characters.');
		expect(badHash.body).toContain('value="0x1234"');

		const hash = txHash(1).toUpperCase().replace('0X', '0x');
		const added = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'allowlist', to: 'added', txHash: hash },
			{ cookie }
		);
		expect(added.status).toBe(303);
		const page = await detailOf(id, cookie);
		expect(page.body).toContain(`href="https://polygonscan.com/tx/${hash.toLowerCase()}"`);
		expect(textOf(page.body)).toMatch(/Allowlist: Waiting to be added → Added/);
		expect(page.body).toMatch(/<button[^>]*name="to" value="sent"/);
		expect(page.body).not.toMatch(/name="to" value="approved"/);
		const csvAfter = await (await fetch(`${base}/admin/allowlist.csv`, { headers: { cookie } })).text();
		expect(csvAfter).not.toContain(id);
	});

	it.each([
		['applicationId', { applicationId: '00000000-0000-4000-8000-000000000000' }, /No application has this id/],
		['applicationId', { applicationId: 'not-a-uuid' }, /Application id must be a UUID/],
		['applicationId', { applicationId: '' }, /Application id is required/],
		['field', { field: 'owner' }, /Field must be review, allowlist or distribution/],
		['to', { to: 'sent' }, /New state must be one of: pending, needs_info, approved, rejected/],
		['to', { to: '' }, /New state is required/],
		['reason', { to: 'rejected', reason: 'x'.repeat(501) }, /Reason must be at most 500 characters/],
		['reason', { to: 'rejected', reason: 'no\u0000pe' }, /Reason must not contain control characters/],
		['reason', { to: 'rejected', reason: '' }, /A reason is needed to move review to rejected/],
		['txHash', { to: 'approved', txHash: txHash(2) }, /A review decision takes no transaction hash/],
		[
			'txHash',
			{ field: 'distribution', to: 'sent', txHash: `0x${'g'.repeat(64)}` },
			/Transaction hash must be 0x followed by 64/
		],
		['field', { field: ['review', 'allowlist'] }, /Field must be text/]
	])('%s: %j → 400 with its message, nothing written', async (_, change, message) => {
		const other = newAccount();
		expect(
			(await postForm(`${base}/apply`, { displayName: 'Target', motivation: 'x' }, { cookie: await login(other) }))
				.status
		).toBe(303);
		const target = await applicationIdOf(other);
		const cookie = await login(admin);
		const page = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: target, field: 'review', to: 'approved', reason: '', txHash: '', ...change },
			{ cookie }
		);
		expect(page.status).toBe(400);
		expect(textOf(page.body)).toMatch(message);
		const after = textOf((await detailOf(target, cookie)).body);
		expect(after).toMatch(/Waiting for review/);
		// Only the submission: nothing was moved.
		expect(after).toMatch(/History \(1\)/);
	});

	const raw = async (url: string, init: RequestInit) => {
		const r = await fetch(url, { redirect: 'manual', ...init });
		return { status: r.status, body: await r.text() };
	};

	describe.each([
		['a visitor', () => Promise.resolve(undefined)],
		['a member', async () => login(testAccount('member'))]
	])('%s', (_, cookieOf) => {
		it('gets the 404 of an unknown path from /admin, its action and its CSV, however asked, and changes nothing', async () => {
			// An approved application, so that the distribution move tried below is one an admin could make.
			const { id } = await pendingApplication();
			expect(
				(
					await postForm(
						`${base}/admin?/transition`,
						{ applicationId: id, field: 'review', to: 'approved' },
						{ cookie: await login(admin) }
					)
				).status
			).toBe(303);
			const cookie = await cookieOf();
			const unknown = await getPage(`${base}/no-such-page-${Date.now()}`, cookie);
			expect(unknown.status).toBe(404);
			const answers = [
				await getPage(`${base}/admin`, cookie),
				await getPage(`${base}/admin?review=pending`, cookie),
				await getPage(`${base}/admin/applications/${id}`, cookie),
				await postForm(
					`${base}/admin/applications/${id}?/transition`,
					{ field: 'distribution', to: 'failed', reason: 'x' },
					{ cookie }
				),
				await postForm(
					`${base}/admin?/transition`,
					{ applicationId: id, field: 'distribution', to: 'failed', reason: 'x' },
					{ cookie }
				),
				await getPage(`${base}/admin/allowlist.csv`, cookie),
				await raw(`${base}/admin/allowlist.csv`, { headers: { ...(cookie ? { cookie } : {}) } }),
				// SvelteKit's own variants: data requests, enhanced form posts, other content types and methods.
				await raw(`${base}/admin/__data.json`, { headers: { ...(cookie ? { cookie } : {}) } }),
				await raw(`${base}/admin?/transition`, {
					method: 'POST',
					headers: {
						...(cookie ? { cookie } : {}),
						origin: base,
						'content-type': 'application/x-www-form-urlencoded',
						'x-sveltekit-action': 'true',
						accept: 'application/json'
					},
					body: `applicationId=${id}&field=distribution&to=failed&reason=x`
				}),
				await raw(`${base}/admin?/transition`, {
					method: 'POST',
					headers: { ...(cookie ? { cookie } : {}), origin: base, 'content-type': 'application/json' },
					body: '{}'
				}),
				await raw(`${base}/admin`, { method: 'PUT', headers: { ...(cookie ? { cookie } : {}) } }),
				await raw(`${base}/admin/anything/below`, { headers: { ...(cookie ? { cookie } : {}) } })
			];
			for (const a of answers) {
				expect(a.status).toBe(404);
				// The same page but for its per-request CSP nonce.
				expect(withoutNonces(a.body)).toBe(withoutNonces(unknown.body));
			}
			const page = await detailOf(id);
			expect(textOf(page.body)).toMatch(/Token distribution: Waiting to be sent/);
		});
	});

	it('the 121st transition in an hour answers 429, says when to try again, and is not processed', async () => {
		const cookie = await login(limitAdmin);
		for (let i = 0; i < 120; i++) {
			expect(
				(
					await postForm(
						`${base}/admin?/transition`,
						{ applicationId: 'not-a-uuid', field: 'review', to: 'approved' },
						{ cookie }
					)
				).status
			).toBe(400);
		}
		const other = newAccount();
		expect(
			(await postForm(`${base}/apply`, { displayName: 'Limit', motivation: 'x' }, { cookie: await login(other) }))
				.status
		).toBe(303);
		const target = await applicationIdOf(other);
		const page = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: target, field: 'review', to: 'approved' },
			{ cookie }
		);
		expect(page.status).toBe(429);
		expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(3_500);
		expect(textOf(page.body)).toMatch(
			/limit of 120 state changes in an hour\. You can try again in (59 minutes|1 hour)/
		);
		expect(textOf((await detailOf(target)).body)).toMatch(/Waiting for review/);
	}, 120_000);
});

describe('cross-origin form posts', () => {
	it.each([
		['/apply', { displayName: 'Mallory', motivation: 'csrf' }, () => login(newAccount())],
		['/checkin', { note: 'csrf' }, () => login(newAccount())],
		[
			'/admin?/transition',
			{ applicationId: '00000000-0000-4000-8000-000000000000', field: 'review', to: 'approved' },
			() => login(admin)
		]
	])('POST %s from another origin is refused with 403 by SvelteKit', async (path, fields, cookieOf) => {
		const cookie = await cookieOf();
		const page = await postForm(base + path, fields, { cookie, origin: 'http://evil.example' });
		expect(page.status).toBe(403);
		expect(page.body).toMatch(/Cross-site POST form submissions are forbidden/);
		if (path === '/apply') expect(textOf((await getPage(`${base}/apply`, cookie)).body)).not.toContain('Mallory');
	});
});
