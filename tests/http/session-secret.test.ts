// The session secret cannot be checked offline against a cookie anyone can get, and a guessable one
// is refused at start (docs/decisions/0014-session-keys-from-scrypt.md). The attack of issue 12
// ("a guessable SESSION_PASSWORD becomes an admin session"), run against the built server, fails.
import { createHash } from 'node:crypto';
import { defaults, seal, unseal } from 'iron-webcrypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, me, startListening } from '../helpers/auth';
import { startServer, TEST_SESSION_PASSWORD, type RunningServer } from '../helpers/server';
import { fetchNonce } from '../helpers/siwe';

const IRON = { ...defaults, ttl: 0 };
const hex = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');

describe('the session secret and the cookie anyone can get', () => {
	let server: RunningServer;
	beforeAll(async () => {
		server = await startListening({ ADMIN_ADDRESSES: admin.address });
	});
	afterAll(() => server?.stop());

	it('the cookie from GET /api/auth/nonce carries no cheap function of the secret', async () => {
		const cookie = (await fetchNonce(server.url)).cookie.slice('session='.length);
		const [, passwordId = '', encryptionSalt, , , , hmacSalt] = cookie.split('*');
		for (const algorithm of ['sha256', 'sha1', 'md5', 'sha512']) {
			expect(cookie).not.toContain(hex(algorithm, TEST_SESSION_PASSWORD).slice(0, 8));
		}
		expect(cookie).not.toContain(TEST_SESSION_PASSWORD);
		// No per-seal salts: iron's own key derivation (one PBKDF2 iteration of the password) is not used.
		expect([encryptionSalt, hmacSalt]).toEqual(['', '']);
		expect(passwordId).toMatch(/^[0-9a-f]{12}$/);
		// The offline check of a guess: even the right password does not open the seal.
		await expect(unseal(cookie, TEST_SESSION_PASSWORD, IRON)).rejects.toThrow();
		await expect(unseal(cookie, { [passwordId]: TEST_SESSION_PASSWORD }, IRON)).rejects.toThrow();
	});

	it('a seal forged with iron and the right password opens neither a session nor /admin', async () => {
		const id = (await fetchNonce(server.url)).cookie.split('*')[1] ?? '';
		const forge = (passwordId: string) =>
			seal(
				{ address: admin.address.toLowerCase(), expiresAt: Date.now() + 3_600_000 },
				{ id: passwordId, secret: TEST_SESSION_PASSWORD },
				IRON
			);
		// Under the id this server seals with, and under the id the old scheme put in clear.
		for (const forged of [await forge(id), await forge(hex('sha256', TEST_SESSION_PASSWORD).slice(0, 12))]) {
			expect((await me(server.url, `session=${forged}`)).body).toEqual({ address: null, isAdmin: false });
			const page = await fetch(`${server.url}/admin`, { headers: { cookie: `session=${forged}` } });
			expect(page.status).toBe(404);
		}
	});

	it('a guessable secret stops the server at start, naming the variable and saying how to make one', async () => {
		const weak = 'passwordpasswordpasswordpassword2026';
		const previous = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
		const refused = await startServer({ env: { SESSION_PASSWORD: weak, SESSION_PASSWORD_PREVIOUS: previous } });
		expect(await refused.exited).not.toBe(0);
		const output = refused.output();
		expect(output).toMatch(/SESSION_PASSWORD: is guessable/);
		expect(output).toMatch(/SESSION_PASSWORD_PREVIOUS: entry 1 is guessable/);
		expect(output).toContain('openssl rand -base64 32');
		expect(output).not.toContain(weak);
		expect(output).not.toContain(previous);
		expect(output).not.toMatch(/Listening on/);
	});
});
