import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNonces } from '../helpers/csp';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { createServerDatabase } from '../helpers/postgres.js';
import { sendAsSpelled, type SentAsSpelled } from '../helpers/raw-http';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// Reviewers and votes (docs/decisions/0028-reviewer-votes.md) through real HTTP on the built server, without
// JavaScript, on the engine of tests/helpers/db.ts `engines` (Postgres with TEST_DATABASE_URL, else PGlite; TEST_ENGINES=all: both).
const admin = testAccount('admin');
const newAccount = () => privateKeyToAccount(generatePrivateKey());
// The fourth votes only in the rate-limit test, so its counter starts at zero there.
const reviewers = [newAccount(), newAccount(), newAccount(), newAccount()] as const;

/** Each spelling of a path under /review, next to the same spelling of a path that does not exist. */
const SPELLINGS: [hidden: string, unknown: string][] = [
	['/review', '/nope00'],
	['/review/', '/nope00/'],
	['/%72eview', '/%6Eope00'],
	['/%72%65%76%69%65%77/', '/%6e%6f%70%65%30%30/'],
	['/REVIEW', '/NOPE00'],
	['/review?tab=voted', '/nope00?tab=voted'],
	['/review/__data.json', '/nope00/__data.json'],
	['/review/00000000-0000-4000-8000-000000000000', '/nope00/00000000-0000-4000-8000-000000000000'],
	['/review/00000000-0000-4000-8000-000000000000?/vote', '/nope00/00000000-0000-4000-8000-000000000000?/vote'],
	[
		'/%72eview/00000000-0000-4000-8000-000000000000/__data.json',
		'/%6Eope00/00000000-0000-4000-8000-000000000000/__data.json'
	]
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];
const BODIES: Record<string, { headers: Record<string, string>; body?: string }> = {
	none: { headers: {} },
	form: { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'vote=approve&score.fit=3' },
	json: {
		headers: { 'content-type': 'application/json', accept: 'application/json', 'x-sveltekit-action': 'true' },
		body: '{"vote":"approve"}'
	}
};

const VOLATILE = new Set(['date', 'etag', 'x-request-id']);
const comparable = ({ status, headers, body }: SentAsSpelled) => ({
	status,
	headers: Object.fromEntries(
		Object.entries(headers)
			.filter(([name]) => !VOLATILE.has(name))
			.map(([name, value]) => [name, typeof value === 'string' ? withoutNonces(value) : value])
	),
	body: withoutNonces(body)
});

describe.each(engines)('reviewers and votes on %s', (engine) => {
	let server: RunningServer;
	let base: string;
	let drop: (() => Promise<void>) | undefined;
	let adminCookie: string;
	const cookies: string[] = [];
	beforeAll(async () => {
		const env: Record<string, string> = {
			ADMIN_ADDRESSES: admin.address,
			REVIEWER_ADDRESSES: reviewers.map((r) => r.address).join(', '),
			REVIEW_QUORUM: '2'
		};
		if (engine === 'postgres') {
			const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, {
				prefix: 'portal_votes',
				migrate: true
			});
			env.DATABASE_URL = database.url;
			drop = database.drop;
		}
		server = await startServer({ env });
		base = server.url;
		adminCookie = await signIn(base, admin);
		for (const r of reviewers) cookies.push(await signIn(base, r));
		// The rubric: two criteria, saved beside the questions.
		const saved = await postForm(
			`${base}/admin/form?/rubric`,
			{
				criterionCount: '2',
				'criteria.0.key': 'fit',
				'criteria.0.label': 'Fit with the community',
				'criteria.1.key': 'effort',
				'criteria.1.label': 'Effort',
				'criteria.1.help': 'How much care went into it'
			},
			{ cookie: adminCookie }
		);
		expect(saved.status).toBe(303);
	}, 120_000);
	afterAll(async () => {
		await server?.stop();
		await drop?.();
	});

	const apply = async (account: PrivateKeyAccount, displayName: string) => {
		const cookie = await signIn(base, account);
		expect((await postForm(`${base}/apply`, { displayName, motivation: 'Because' }, { cookie })).status).toBe(303);
		const page = await getPage(`${base}/admin?sort=newest&q=${account.address}`, adminCookie);
		return { id: /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body)![1]!, cookie };
	};
	const vote = (i: number, id: string, fields: Record<string, string>) =>
		postForm(`${base}/review/${id}?/vote`, fields, { cookie: cookies[i] });
	const approve = { vote: 'approve', 'score.fit': '4', 'score.effort': '5' };

	it('a plain member and a visitor get from every /review spelling, method and content type what an unknown path gets', async () => {
		const member = await signIn(base, newAccount());
		const url = new URL(base);
		const differences: string[] = [];
		for (const cookie of [{}, { cookie: member }] as Record<string, string>[])
			for (const [hidden, unknown] of SPELLINGS)
				for (const method of METHODS)
					for (const [kind, { headers, body }] of Object.entries(BODIES)) {
						const sent = method === 'GET' || method === 'HEAD' ? undefined : body;
						const all = { ...headers, ...cookie };
						const [a, b] = await Promise.all([
							sendAsSpelled(url, method, hidden, all, sent),
							sendAsSpelled(url, method, unknown, all, sent)
						]);
						if (JSON.stringify(comparable(a)) !== JSON.stringify(comparable(b)))
							differences.push(`${method} ${hidden} (${kind}): ${a.status} where ${unknown} answers ${b.status}`);
					}
		expect(differences).toEqual([]);
		// The control: a reviewer does reach it.
		expect((await sendAsSpelled(url, 'GET', '/%72eview', { cookie: cookies[0]! })).status).toBe(200);
	}, 120_000);

	it('blind until one’s own approve or reject: no other vote in the page or its __data.json before, nor after an abstention', async () => {
		const { id } = await apply(newAccount(), 'Blind Bea');
		// In reviewer 0's queue, longest waiting first.
		expect(textOf((await getPage(`${base}/review`, cookies[0])).body)).toContain('Blind Bea');
		expect((await vote(0, id, { ...approve, comment: 'COMMENT-OF-R0' })).status).toBe(303);
		expect(textOf((await getPage(`${base}/review`, cookies[0])).body)).not.toContain('Blind Bea');
		expect(textOf((await getPage(`${base}/review?tab=voted`, cookies[0])).body)).toContain('Blind Bea');
		const r0 = reviewers[0].address.toLowerCase();
		for (const path of [`/review/${id}`, `/review/${id}/__data.json`]) {
			const before = await getPage(`${base}${path}`, cookies[1]);
			expect(before.status).toBe(200);
			expect(before.body).not.toContain('COMMENT-OF-R0');
			expect(before.body.toLowerCase()).not.toContain(r0);
		}
		expect(textOf((await getPage(`${base}/review/${id}`, cookies[1])).body)).toContain(
			'Hidden until you approve or reject'
		);
		// An abstention opens nothing (decision 0040): still hidden in the page and its data.
		expect((await vote(1, id, { vote: 'abstain' })).status).toBe(303);
		for (const path of [`/review/${id}`, `/review/${id}/__data.json`]) {
			const abstained = await getPage(`${base}${path}`, cookies[1]);
			expect(abstained.body).not.toContain('COMMENT-OF-R0');
			expect(abstained.body.toLowerCase()).not.toContain(r0);
		}
		expect((await vote(1, id, { ...approve, comment: '' })).status).toBe(303);
		for (const path of [`/review/${id}`, `/review/${id}/__data.json`]) {
			const after = await getPage(`${base}${path}`, cookies[1]);
			expect(after.body).toContain('COMMENT-OF-R0');
			expect(after.body.toLowerCase()).toContain(r0);
		}
		// Admins always see every vote.
		expect((await getPage(`${base}/review/${id}`, adminCookie)).body).toContain('COMMENT-OF-R0');
		expect((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body).toContain('COMMENT-OF-R0');
	});

	it('refusals: 400 for each bad field, 403 on one’s own application, 409 once decided; nothing recorded', async () => {
		const { id } = await apply(newAccount(), 'Refused Rita');
		const bad: [Record<string, string>, string][] = [
			[{ ...approve, vote: 'maybe' }, 'Choose approve, reject or abstain.'],
			[{ 'score.fit': '4', 'score.effort': '5' }, 'Choose approve, reject or abstain.'],
			[{ ...approve, 'score.fit': '0' }, 'A score is a whole number from 1 to 5.'],
			[{ ...approve, 'score.fit': '4.5' }, 'A score is a whole number from 1 to 5.'],
			[{ vote: 'approve', 'score.fit': '4' }, 'Score “Effort” from 1 to 5.'],
			[{ ...approve, vote: 'reject' }, 'Say why you vote to reject.'],
			[{ ...approve, comment: 'x'.repeat(2001) }, 'Comment must be at most 2000 characters.'],
			[{ ...approve, comment: 'bad\u0000byte' }, 'Comment must not contain control characters']
		];
		for (const [fields, message] of bad) {
			const answer = await vote(0, id, fields);
			expect(answer.status, JSON.stringify(fields)).toBe(400);
			expect(textOf(answer.body)).toContain(message);
		}
		expect(textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body)).toContain(
			'No reviewer has voted yet.'
		);
		// A reviewer's own application.
		const own = await apply(reviewers[2], 'Reviewer Two Applies');
		const mine = await vote(2, own.id, approve);
		expect(mine.status).toBe(403);
		expect(textOf(mine.body)).toContain('your own application');
		// Decided: votes are closed.
		const confirmed = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'review', to: 'approved', confirm: 'yes' },
			{ cookie: adminCookie }
		);
		expect(confirmed.status).toBe(303);
		const late = await vote(0, id, approve);
		expect(late.status).toBe(409);
		expect(textOf(late.body)).toContain('votes are closed');
		expect((await vote(0, '00000000-0000-4000-8000-000000000000', approve)).status).toBe(404);
	});

	it('a changed vote keeps the old row; votes=ready lists an application once it reaches the quorum, not before', async () => {
		const { id } = await apply(newAccount(), 'Quorum Quinn');
		const ready = async () => (await getPage(`${base}/admin?votes=ready&q=Quorum`, adminCookie)).body;
		const needed = async () => (await getPage(`${base}/admin?votes=needed&q=Quorum`, adminCookie)).body;
		expect((await vote(0, id, approve)).status).toBe(303);
		expect(
			(await vote(0, id, { vote: 'reject', comment: 'Changed my mind', 'score.fit': '1', 'score.effort': '2' })).status
		).toBe(303);
		// Two votes by one reviewer are one current vote: still under the quorum of 2.
		expect(await ready()).not.toContain('Quorum Quinn');
		expect(await needed()).toContain('Quorum Quinn');
		expect(textOf((await getPage(`${base}/review/${id}`, cookies[0])).body)).toContain(
			'You changed your vote 1 time; earlier votes are kept.'
		);
		expect((await vote(1, id, approve)).status).toBe(303);
		expect(await ready()).toContain('Quorum Quinn');
		expect(await needed()).not.toContain('Quorum Quinn');
		const row = textOf(await ready());
		// The counts in words (zero left out), "Ready" at the quorum, then the mean of the current votes' means: (1.5 + 4.5) / 2.
		expect(row).toMatch(/Quorum Quinn .* 1 approve\s*1 reject\s*Ready\s*3\.0 /);
		const detail = textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body);
		expect(detail).toContain('Votes (2)');
		expect(detail).toContain('Changed my mind');
		expect(detail).toContain('quorum reached');
	});

	it('applicants never see votes, scores, comments, notes or reviewer addresses (/apply and its __data.json)', async () => {
		const applicant = newAccount();
		const { id, cookie } = await apply(applicant, 'Private Pat');
		expect((await vote(0, id, { ...approve, comment: 'PRIVATE-REVIEW-COMMENT' })).status).toBe(303);
		const noted = await postForm(
			`${base}/admin/applications/${id}?/note`,
			{ body: 'PRIVATE-NOTE' },
			{ cookie: adminCookie }
		);
		expect(noted.status).toBe(303);
		for (const path of ['/apply', '/apply/__data.json']) {
			const page = await getPage(`${base}${path}`, cookie);
			expect(page.status).toBe(200);
			expect(page.body).not.toContain('PRIVATE-REVIEW-COMMENT');
			for (const r of reviewers) expect(page.body.toLowerCase()).not.toContain(r.address.toLowerCase());
			expect(page.body).not.toMatch(/"(scores|meanScore|votes)"/);
			// Nor the tally kept on the application's row (votesApprove, …, votesMeanScore: drizzle/0011).
			expect(page.body).not.toMatch(/votes(Approve|Reject|Abstain|Current|Scored|MeanScore)|votes_/);
			// Nor the notes, nor how many there are (the count kept on the row: drizzle/0020).
			expect(page.body).not.toContain('PRIVATE-NOTE');
			expect(page.body).not.toMatch(/notesCount|notes_count/);
		}
	});

	it('the 241st vote within the hour by one reviewer answers 429 and says when to try again', async () => {
		const { id } = await apply(newAccount(), 'Limit Lee');
		for (let i = 0; i < 240; i += 10)
			await Promise.all(
				Array.from({ length: 10 }, async () => expect((await vote(3, id, { vote: 'abstain' })).status).toBe(303))
			);
		const over = await vote(3, id, { vote: 'abstain' });
		expect(over.status).toBe(429);
		expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
		expect(textOf(over.body)).toContain('You have reached the limit of 240 votes in an hour');
	}, 120_000);
});
