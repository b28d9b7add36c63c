import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { createServerDatabase } from '../helpers/postgres.js';
import { Receiver, newSecret, verified } from '../helpers/receiver';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// Bulk decisions (POST /admin?/bulk) and the confirm step before a final move, through real HTTP
// on the built server without JavaScript, on the engine of tests/helpers/db.ts `engines` (Postgres with TEST_DATABASE_URL, else PGlite; TEST_ENGINES=all: both).
// Each test has an admin of its own: the per-address limit (120 moves an hour) is per admin.
const admins = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()));
const member = testAccount('member');
const secret = newSecret();

describe.each(engines)('bulk decisions on %s', (engine) => {
	let server: RunningServer;
	let base: string;
	let hook: Receiver;
	let drop: (() => Promise<void>) | undefined;
	beforeAll(async () => {
		hook = await new Receiver().start();
		const env: Record<string, string> = {
			ADMIN_ADDRESSES: admins.map((a) => a.address).join(','),
			WEBHOOK_URLS: hook.url,
			WEBHOOK_SECRET: secret
		};
		if (engine === 'postgres') {
			const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, {
				prefix: 'portal_bulk',
				migrate: true
			});
			env.DATABASE_URL = database.url;
			drop = database.drop;
		}
		server = await startServer({ env });
		base = server.url;
	}, 60_000);
	afterAll(async () => {
		await server?.stop();
		await hook?.stop();
		await drop?.();
	});

	/** `n` new members apply; their application ids, in the order applied. */
	async function applicants(n: number, prefix: string, adminCookie: string): Promise<string[]> {
		const ids: string[] = [];
		for (let start = 0; start < n; start += 10) {
			const batch = await Promise.all(
				Array.from({ length: Math.min(10, n - start) }, async (_, k) => {
					const account = privateKeyToAccount(generatePrivateKey());
					const cookie = await signIn(base, account);
					const name = `${prefix} ${String(start + k).padStart(3, '0')}`;
					expect((await postForm(`${base}/apply`, { displayName: name, motivation: 'Bulk' }, { cookie })).status).toBe(
						303
					);
					const page = await getPage(`${base}/admin?q=${account.address}`, adminCookie);
					return /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
				})
			);
			ids.push(...batch);
		}
		return ids;
	}
	const detail = async (id: string, cookie: string) =>
		textOf((await getPage(`${base}/admin/applications/${id}`, cookie)).body);
	const historyCount = async (id: string, cookie: string) =>
		Number(/History \((\d+)\)/.exec(await detail(id, cookie))![1]);
	const bulk = (cookie: string, fields: Record<string, string | string[]>, query = '') =>
		postForm(`${base}/admin?/bulk${query}`, fields, { cookie });
	/** Makes a marker move and waits for its event and those of `also`: what was written to the outbox by then has arrived. */
	async function settledEvents(cookie: string, markerId: string, also: string[]) {
		expect(
			(
				await postForm(
					`${base}/admin?/transition`,
					{ applicationId: markerId, field: 'review', to: 'needs_info', reason: 'marker' },
					{ cookie }
				)
			).status
		).toBe(303);
		await hook.until(
			(r) =>
				r.some((x) => x.body.includes(markerId) && x.body.includes('"marker"')) &&
				also.every((id) => r.some((x) => x.body.includes(id) && x.body.includes('application.transitioned')))
		);
		return hook.received
			.map((r) => verified(secret, r) as { type: string; data: { applicationId?: string } })
			.filter((e) => e.type === 'application.transitioned');
	}

	it('a final move asks to confirm first; confirmed, every application moves, one audit row and one event each', async () => {
		const cookie = await signIn(base, admins[0]!);
		const ids = await applicants(3, 'Confirmee', cookie);
		const fields = { applicationIds: ids, field: 'review', to: 'approved' };

		// Without confirm=yes nothing is applied: the page lists what will happen and offers Confirm.
		const asked = await bulk(cookie, fields, '&q=Confirmee');
		expect(asked.status).toBe(200);
		const text = textOf(asked.body);
		expect(text).toMatch(
			/Approve 3 applications\? This is final: it cannot be undone\. Confirmee 000 Confirmee 001 Confirmee 002/
		);
		expect(asked.body).toMatch(/<input type="hidden" name="confirm" value="yes"/);
		for (const id of ids) {
			expect(asked.body).toContain(`name="applicationIds" value="${id}"`);
			expect(await detail(id, cookie)).toMatch(/Waiting for review/);
		}

		const done = await bulk(cookie, { ...fields, confirm: 'yes' }, '&q=Confirmee');
		expect(done.status).toBe(303);
		// Back to the same table (its filters), saying what was done.
		expect(done.location).toBe('/admin?q=Confirmee&done=review.approved&count=3');
		expect(textOf((await getPage(base + done.location!, cookie)).body)).toContain('Approved 3 applications.');
		for (const id of ids) {
			const page = await detail(id, cookie);
			expect(page).toMatch(/Approved/);
			// The submission and the approval.
			expect(page).toMatch(/History \(2\)/);
		}
		const transitioned = (r: { body: string }) =>
			r.body.includes('application.transitioned') && ids.some((id) => r.body.includes(id));
		const events = await hook.until((r) => r.filter(transitioned).length >= 3);
		const moved = events
			.map((r) => verified(secret, r) as { type: string; data: Record<string, unknown> })
			.filter((e) => e.type === 'application.transitioned' && ids.includes(e.data.applicationId as string));
		expect(moved).toHaveLength(3);
		for (const e of moved)
			expect(e).toMatchObject({ type: 'application.transitioned', data: { field: 'review', to: 'approved' } });

		// needs_info is not final: no confirm step; its one reason is required and goes to every row.
		const more = await applicants(2, 'Asked', cookie);
		const noReason = await bulk(cookie, { applicationIds: more, field: 'review', to: 'needs_info' });
		expect(noReason.status).toBe(400);
		expect(textOf(noReason.body)).toContain(
			'A reason or a comment on at least one answer is needed to ask for more information.'
		);
		const asked2 = await bulk(cookie, {
			applicationIds: more,
			field: 'review',
			to: 'needs_info',
			reason: 'Which repo?'
		});
		expect(asked2.status).toBe(303);
		expect(textOf((await getPage(base + asked2.location!, cookie)).body)).toContain(
			'Asked 2 applications for more information.'
		);
		for (const id of more) expect(await detail(id, cookie)).toMatch(/Review: More information asked .*Which repo\?/s);
	}, 120_000);

	it('one application in the wrong state refuses the whole batch, names it, and changes nothing', async () => {
		const cookie = await signIn(base, admins[1]!);
		const ids = await applicants(4, 'Batchmate', cookie);
		const [first, second, third, marker] = ids as [string, string, string, string];
		// Batchmate 001 is approved meanwhile: it cannot be rejected.
		expect(
			(
				await postForm(
					`${base}/admin?/transition`,
					{ applicationId: second, field: 'review', to: 'approved' },
					{ cookie }
				)
			).status
		).toBe(303);
		const histories = await Promise.all([first, second, third].map((id) => historyCount(id, cookie)));
		const fields = { applicationIds: [first, second, third], field: 'review', to: 'rejected', reason: 'Spam' };

		for (const confirm of [{}, { confirm: 'yes' }] as Record<string, string>[]) {
			const refused = await bulk(cookie, { ...fields, ...confirm });
			expect(refused.status).toBe(409);
			expect(textOf(refused.body)).toContain(
				'Nothing was changed: 1 of the 3 selected applications cannot take “Reject”: Batchmate 001 (Review is approved, which is final).'
			);
		}
		expect(await detail(first, cookie)).toMatch(/Waiting for review/);
		expect(await detail(second, cookie)).toMatch(/Approved/);
		expect(await detail(third, cookie)).toMatch(/Waiting for review/);
		expect(await Promise.all([first, second, third].map((id) => historyCount(id, cookie)))).toEqual(histories);
		// No outbox row either: once a later move's event has arrived, none came for the refused batch.
		const events = await settledEvents(cookie, marker, [second]);
		expect(events.filter((e) => e.data.applicationId === first || e.data.applicationId === third)).toEqual([]);
		expect(events.filter((e) => e.data.applicationId === second)).toHaveLength(1);

		// A transition field of allowlist on applications not yet approved: also 409, by name.
		const early = await bulk(cookie, {
			applicationIds: [first, third],
			field: 'allowlist',
			to: 'failed',
			reason: 'x'
		});
		expect(early.status).toBe(409);
		expect(textOf(early.body)).toMatch(
			/Batchmate 000 \(Allowlist can change only after the application is approved\); Batchmate 002/
		);
	}, 120_000);

	it('takes 1 and 100 ids; refuses 0, 101, and ids that are not UUIDs with 400', async () => {
		const cookie = await signIn(base, admins[2]!);
		const ids = await applicants(101, 'Hundred', cookie);
		const move = { field: 'review', to: 'approved', confirm: 'yes' };
		for (const [applicationIds, message] of [
			[[], 'Select at least one application.'],
			[ids, 'Select at most 100 applications at once.'],
			[['not-a-uuid'], 'Every application id must be a UUID.'],
			[[ids[0]!, `${ids[1]}'--`], 'Every application id must be a UUID.']
		] as const) {
			const refused = await bulk(cookie, { ...move, applicationIds: [...applicationIds] });
			expect(refused.status).toBe(400);
			expect(textOf(refused.body)).toContain(message);
		}
		// Bad fields are the single move's own messages.
		const badField = await bulk(cookie, { applicationIds: [ids[0]!], field: 'review', to: 'added', confirm: 'yes' });
		expect(badField.status).toBe(400);
		expect(textOf(badField.body)).toContain(
			'New state must be one of: pending, needs_info, approved, rejected, withdrawn.'
		);
		const reviewHash = await bulk(cookie, {
			applicationIds: [ids[0]!],
			field: 'review',
			to: 'approved',
			txHash: `0x${'1'.repeat(64)}`,
			confirm: 'yes'
		});
		expect(reviewHash.status).toBe(400);
		expect(textOf(reviewHash.body)).toContain('A review decision takes no transaction hash.');
		// An id that names no application: 400, nothing changed.
		const unknown = await bulk(cookie, { ...move, applicationIds: [ids[0]!, randomUUID()] });
		expect(unknown.status).toBe(400);
		expect(textOf(unknown.body)).toMatch(/No application has the id [0-9a-f-]{36}\. Nothing was changed\./);
		expect(await detail(ids[0]!, cookie)).toMatch(/Waiting for review/);
		for (const id of ids.slice(0, 3)) expect(await detail(id, cookie)).toMatch(/Waiting for review/);

		const one = await bulk(cookie, { ...move, applicationIds: [ids[100]!] });
		expect(one.status).toBe(303);
		expect(one.location).toBe('/admin?done=review.approved&count=1');
		// Upper case ids and duplicates are the same applications.
		const hundred = await bulk(cookie, {
			...move,
			applicationIds: [...ids.slice(0, 100).map((id) => id.toUpperCase())]
		});
		expect(hundred.status).toBe(303);
		expect(hundred.location).toBe('/admin?done=review.approved&count=100');
		expect(textOf((await getPage(`${base}/admin?q=Hundred&review=approved`, cookie)).body)).toMatch(/Approved 101/);
		// Allowlist added for the batch with its one transaction hash (a final move: confirmed).
		const tx = `0x${'ab'.repeat(32)}`;
		const added = await bulk(cookie, {
			applicationIds: ids.slice(0, 2),
			field: 'allowlist',
			to: 'added',
			txHash: tx.toUpperCase().replace('0X', '0x')
		});
		expect(added.status).toBe(200);
		expect(textOf(added.body)).toContain('Record 2 applications as added to the allowlist?');
		expect(
			(
				await bulk(cookie, {
					applicationIds: ids.slice(0, 2),
					field: 'allowlist',
					to: 'added',
					txHash: tx,
					confirm: 'yes'
				})
			).status
		).toBe(303);
		for (const id of ids.slice(0, 2)) expect(await detail(id, cookie)).toMatch(/Allowlist: added/);
		expect(await detail(ids[0]!, cookie)).toContain(tx);
	}, 180_000);

	it('spends one of the hourly limit per application; a bulk that does not fit is refused 429 and spends nothing', async () => {
		const cookie = await signIn(base, admins[3]!);
		const ids = await applicants(30, 'Budget', cookie);
		const thirty = await bulk(cookie, { applicationIds: ids, field: 'review', to: 'approved', confirm: 'yes' });
		expect(thirty.status).toBe(303);
		// 90 of 120 are left: 91 do not fit.
		const unknown = (n: number) => Array.from({ length: n }, () => randomUUID());
		const tooMany = await bulk(cookie, {
			applicationIds: unknown(91),
			field: 'review',
			to: 'approved',
			confirm: 'yes'
		});
		expect(tooMany.status).toBe(429);
		expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(3_000);
		expect(textOf(tooMany.body)).toMatch(
			/limit of 120 state changes in an hour\. You can try again in .*This move needs 91 of them; 90 are left\. Nothing was changed\./
		);
		// The refused 91 spent nothing: 90 still fit (these ids name no application: counted, then 400).
		expect(
			(await bulk(cookie, { applicationIds: unknown(90), field: 'review', to: 'approved', confirm: 'yes' })).status
		).toBe(400);
		// Now all 120 are spent: a single move is refused too.
		const single = await postForm(
			`${base}/admin?/transition`,
			{ applicationId: ids[0]!, field: 'allowlist', to: 'failed', reason: 'x' },
			{ cookie }
		);
		expect(single.status).toBe(429);
		expect(await detail(ids[0]!, cookie)).toMatch(/Allowlist: Waiting to be added/);
	}, 120_000);

	it('the page of one application asks to confirm a final move; without confirm=yes nothing moves', async () => {
		const cookie = await signIn(base, admins[4]!);
		const [id] = await applicants(1, 'Single', cookie);
		const asked = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'review', to: 'rejected', reason: 'No' },
			{ cookie }
		);
		expect(asked.status).toBe(200);
		expect(textOf(asked.body)).toMatch(/Reject Single 000\? This is final: it cannot be undone\./);
		expect(asked.body).toMatch(/<input type="hidden" name="reason" value="No"/);
		expect(await detail(id!, cookie)).toMatch(/Waiting for review/);
		// Not final: applied at once.
		expect(
			(
				await postForm(
					`${base}/admin/applications/${id}?/transition`,
					{ field: 'review', to: 'needs_info', reason: 'More?' },
					{ cookie }
				)
			).status
		).toBe(303);
		const done = await postForm(
			`${base}/admin/applications/${id}?/transition`,
			{ field: 'review', to: 'rejected', reason: 'No', confirm: 'yes' },
			{ cookie }
		);
		expect(done.status).toBe(303);
		expect(await detail(id!, cookie)).toMatch(/Rejected/);
	}, 60_000);

	it('a member posting a bulk gets the 404 of an unknown path and nothing moves', async () => {
		const adminCookie = await signIn(base, admins[4]!);
		const [id] = await applicants(1, 'Hidden', adminCookie);
		const cookie = await signIn(base, member);
		const fields = { applicationIds: [id!], field: 'review', to: 'approved', confirm: 'yes' };
		const refused = await postForm(`${base}/admin?/bulk`, fields, { cookie });
		const unknown = await postForm(`${base}/nope?/bulk`, fields, { cookie });
		expect(refused.status).toBe(404);
		expect(unknown.status).toBe(404);
		expect((await postForm(`${base}/admin?/bulk`, fields)).status).toBe(404);
		expect(await detail(id!, adminCookie)).toMatch(/Waiting for review/);
	}, 60_000);
});
