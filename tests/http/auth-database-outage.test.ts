// Sign-in while the Postgres server is away: 503 database_unavailable, no session, and recovery.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { admin, errorCode, me, member, startListening } from '../helpers/auth';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { createServerDatabase } from '../helpers/postgres.js';
import { buildMessage, fetchNonce, postVerify, sessionCookieFrom, signIn } from '../helpers/siwe';
import { proxyFor } from '../helpers/tcp-proxy';

describe.runIf(serverUrl)('sign-in while the Postgres server is away', () => {
	it('verify answers 503 database_unavailable and sets no session; nonce still works; sign-in recovers', async () => {
		const database = await createServerDatabase(requireServerUrl());
		const { proxy, proxiedUrl } = await proxyFor(database.url);
		await proxy.up();
		const server = await startListening({ DATABASE_URL: proxiedUrl });
		try {
			await signIn(server.url, member);

			await proxy.down();
			const { nonce, cookie } = await fetchNonce(server.url);
			const host = new URL(server.url).host;
			const text = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: admin.address });
			const started = Date.now();
			const response = await postVerify(
				server.url,
				{ message: text, signature: await admin.signMessage({ message: text }) },
				cookie
			);
			expect(response.status).toBe(503);
			expect(Date.now() - started).toBeLessThan(15_000);
			expect(await errorCode(response)).toBe('database_unavailable');
			expect(sessionCookieFrom(response)).toBe('');

			await proxy.up();
			let cookieBack: string | null = null;
			for (let i = 0; i < 10 && !cookieBack; i++) cookieBack = await signIn(server.url, admin).catch(() => null);
			expect((await me(server.url, cookieBack ?? undefined)).body.address).toBe(admin.address);
			const check = postgres(database.url, { max: 1, onnotice: () => {} });
			try {
				const rows = await check<{ address: string }[]>`select address from members order by address`;
				expect(rows.map((r) => r.address)).toEqual([admin.address, member.address].map((a) => a.toLowerCase()).sort());
			} finally {
				await check.end();
			}
		} finally {
			await server.stop();
			await proxy.down();
			await database.drop();
		}
	}, 120_000);
});
