// A statement the database cancels for running past the statement timeout (SQLSTATE 57014) gives the page
// or action the outage's 503 page (database_unavailable), never a 500 (docs/configuration.md "The database
// at start"). Seen at 2,000,000 rows: the admin search `/admin?q=0x000…1` answered a bare 500. Here the
// statement is made slow the way it happens in production without a huge table: another session holds a
// lock on `applications` (a migration, a VACUUM FULL), and the portal's statements wait on it until their
// timeout, set low through DATABASE_URL's `statement_timeout` query parameter. The Postgres server only.
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { startListening } from '../helpers/auth';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { createServerDatabase } from '../helpers/postgres.js';
import { signIn } from '../helpers/siwe';

describe.runIf(serverUrl)('a statement cancelled by the statement timeout', () => {
	it('the admin search and a move answer the 503 page while applications is locked, and work again after', async () => {
		const admin = privateKeyToAccount(generatePrivateKey());
		const applicant = privateKeyToAccount(generatePrivateKey());
		const database = await createServerDatabase(requireServerUrl());
		const url = new URL(database.url);
		url.searchParams.set('statement_timeout', '1500');
		const server = await startListening({ DATABASE_URL: url.toString(), ADMIN_ADDRESSES: admin.address });
		const locker = postgres(database.url, { max: 1, onnotice: () => {} });
		try {
			const applicantCookie = await signIn(server.url, applicant);
			const fields = { displayName: 'Tess Timeout', motivation: 'Slow queries', contact: '@tess' };
			expect((await postForm(`${server.url}/apply`, fields, { cookie: applicantCookie })).status).toBe(303);
			const cookie = await signIn(server.url, admin);
			const search = `${server.url}/admin?q=0x0000000000000000000000000000000000000001`;
			expect((await getPage(search, cookie)).status).toBe(200);
			const [{ id } = { id: '' }] = await locker<{ id: string }[]>`select id from applications`;

			await locker.begin(async (tx) => {
				await tx`lock table applications in access exclusive mode`;
				const page = await getPage(search, cookie);
				expect(page.status).toBe(503);
				expect(textOf(page.body)).toContain('The database is unavailable. Try again in a moment.');
				const moved = await postForm(
					`${server.url}/admin?/transition`,
					{ applicationId: id, field: 'review', to: 'approved', reason: '' },
					{ cookie }
				);
				expect(moved.status).toBe(503);
				expect(textOf(moved.body)).toContain('The database is unavailable. Try again in a moment.');
			});
			// The lock gone, the same requests work; the move was not made while it was refused.
			expect((await getPage(search, cookie)).status).toBe(200);
			const [{ review } = { review: '' }] = await locker<{ review: string }[]>`select review from applications`;
			expect(review).toBe('pending');
			expect(server.output()).toContain('A statement ran past the statement timeout');
			expect(server.output()).not.toContain('Tess Timeout');
		} finally {
			await locker.end();
			await server.stop();
			await database.drop();
		}
	}, 120_000);
});
