import { defaults, seal, unseal } from 'iron-webcrypto';
import { describe, expect, it } from 'vitest';
import { createSessionCodec } from './session';
import { deriveSessionKeys } from './session-keys';

const PASSWORD = 'q7Vd2LmX9tRb4NcW8kZp3HsJ6fGy1AeU';
const IRON = { ...defaults, ttl: 0 };

// Sessions were sealed by iron-webcrypto until decision 0036; the same format and keys, read by @hapi/iron.
describe('the session cookie across the change of iron library', () => {
	it('a cookie iron-webcrypto sealed with the same keys still reads, so nobody is signed out', async () => {
		const codec = await createSessionCodec({ sessionPassword: PASSWORD, sessionPasswordsPrevious: [] });
		const data = { address: `0x${'ab'.repeat(20)}`, expiresAt: Date.now() + 3_600_000 };
		const before = await seal(data, await deriveSessionKeys(PASSWORD), IRON);
		expect(await codec.read(before)).toEqual(data);
	});

	it('a cookie sealed now opens with iron-webcrypto and the same keys, and with nothing else', async () => {
		const codec = await createSessionCodec({ sessionPassword: PASSWORD, sessionPasswordsPrevious: [] });
		const keys = await deriveSessionKeys(PASSWORD);
		const data = { nonce: 'n0nce1234567', expiresAt: Date.now() + 600_000 };
		const cookie = await codec.seal(data);
		expect(cookie.split('*')[1]).toBe(keys.id);
		expect(await unseal(cookie, { [keys.id]: keys }, IRON)).toEqual(data);
		await expect(unseal(cookie, { [keys.id]: PASSWORD }, IRON)).rejects.toThrow();
	});

	it('a tampered or foreign cookie reads as no session', async () => {
		const codec = await createSessionCodec({ sessionPassword: PASSWORD, sessionPasswordsPrevious: [] });
		const cookie = await codec.seal({ address: `0x${'cd'.repeat(20)}`, expiresAt: Date.now() + 60_000 });
		const parts = cookie.split('*');
		parts[4] = parts[4]!.slice(0, -2) + (parts[4]!.endsWith('AA') ? 'AB' : 'AA');
		expect(await codec.read(parts.join('*'))).toBeNull();
		const foreign = await seal({ address: `0x${'cd'.repeat(20)}`, expiresAt: Date.now() + 60_000 }, PASSWORD, IRON);
		expect(await codec.read(foreign)).toBeNull();
		expect(await codec.read('__proto__')).toBeNull();
	});
});
