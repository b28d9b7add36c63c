import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { rejectionInWords, surviveUnhandledRejections } from '../../deploy/start-up.js';

// Issue 54: background work that rejects with nobody to handle it is logged, and the server goes on.
describe('surviveUnhandledRejections', () => {
	it('listens for unhandled rejections; the line names the failure by code and frame, never its message', () => {
		const proc = new EventEmitter();
		surviveUnhandledRejections(proc as unknown as NodeJS.Process);
		expect(proc.listenerCount('unhandledRejection')).toBe(1);
		const err = Object.assign(new Error('Public key 0xsecret-key is not valid'), {
			code: 'ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY'
		});
		expect(() => proc.emit('unhandledRejection', err, Promise.resolve())).not.toThrow();
		expect(rejectionInWords(err)).toMatch(/^Error ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY at /);
		expect(rejectionInWords(err)).not.toContain('0xsecret-key');
		expect(rejectionInWords('a string with a secret')).toBe('string');
	});
});
