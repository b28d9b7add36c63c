// Applicants never see who reviewed them (docs/pages-and-forms.md "/apply"): the history says
// "a reviewer" or "you", and no admin address is in what /apply sends to the browser.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

const admin = testAccount('admin');

describe('/apply as the applicant', () => {
	let server: RunningServer;
	beforeAll(async () => {
		server = await startServer({ env: { ADMIN_ADDRESSES: admin.address } });
	});
	afterAll(() => server?.stop());

	it('shows "a reviewer" and "you", and sends no admin address in the page or its __data.json', async () => {
		const base = server.url;
		const applicant = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(base, applicant);
		const adminCookie = await signIn(base, admin);
		expect((await postForm(`${base}/apply`, { displayName: 'Ada', motivation: 'Engines' }, { cookie })).status).toBe(
			303
		);
		const listed = await getPage(`${base}/admin?q=${applicant.address.toLowerCase()}`, adminCookie);
		const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(listed.body)?.[1] ?? '';
		expect(id).not.toBe('');
		const move = (to: string, reason: string) =>
			postForm(
				`${base}/admin?/transition`,
				{ applicationId: id, field: 'review', to, reason },
				{ cookie: adminCookie }
			);
		expect((await move('needs_info', 'Which engine?')).status).toBe(303);
		expect(
			(await postForm(`${base}/apply`, { displayName: 'Ada L.', motivation: 'Analytical' }, { cookie })).status
		).toBe(303);
		expect((await move('approved', '')).status).toBe(303);

		const page = await getPage(`${base}/apply`, cookie);
		const data = await fetch(`${base}/apply/__data.json`, { headers: { cookie } });
		expect(data.status).toBe(200);
		const text = textOf(page.body);
		expect(text).toMatch(
			/Review: Waiting for review → More information asked .{0,40} by a reviewer Reason: Which engine\?/
		);
		expect(text).toMatch(
			/Review: More information asked → Waiting for review .{0,40} by you Sent again with changes\./
		);
		expect(text).toMatch(/Review: Waiting for review → Approved .{0,40} by a reviewer/);
		const hex = admin.address.slice(2).toLowerCase();
		for (const body of [page.body, await data.text()]) {
			expect(body.toLowerCase()).not.toContain(hex);
			expect(body.toLowerCase()).not.toContain(hex.slice(0, 4) + '…');
		}
	});
});
