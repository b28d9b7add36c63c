// @ts-check
// Encrypted backups (`npm run db:backup -- --encrypt KEYFILE`, docs/security.md "Backups"): the gzip
// file sealed with AES-256-GCM under a 32-byte key kept in a file. Layout: "MPBKGCM1", a random
// 12-byte IV, the ciphertext, the 16-byte tag. A backup holds applicants' personal data; whoever copies
// the file off the machine needs the key to read it, and a changed byte fails the tag.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const MAGIC = Buffer.from('MPBKGCM1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/**
 * The key in a key file: 32 bytes written as base64 (`openssl rand -base64 32`) or 64 hex digits.
 * @param {string} file
 */
export function readBackupKey(file) {
	const text = readFileSync(file, 'utf8').trim();
	const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
	if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(text) && key.toString('base64') !== text))
		throw new Error(
			`${file} does not hold a key: 32 random bytes as base64 (openssl rand -base64 32) or 64 hex digits`
		);
	return key;
}

/** Whether a backup file is encrypted (starts with the magic). @param {string} file */
export function isEncryptedBackup(file) {
	const fd = openSync(file, 'r');
	try {
		const head = Buffer.alloc(MAGIC.length);
		return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(MAGIC);
	} finally {
		closeSync(fd);
	}
}

/** A stream that seals what passes through it. @param {Buffer} key */
export function encryptStream(key) {
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv(ALGORITHM, key, iv);
	let started = false;
	return new Transform({
		transform(/** @type {Buffer} */ chunk, _encoding, done) {
			if (!started) {
				started = true;
				this.push(Buffer.concat([MAGIC, iv]));
			}
			done(null, cipher.update(chunk));
		},
		flush(done) {
			if (!started) this.push(Buffer.concat([MAGIC, iv]));
			this.push(cipher.final());
			done(null, cipher.getAuthTag());
		}
	});
}

/**
 * A stream that opens a sealed backup. What it passes on is checked only at its end: a wrong key or a
 * changed byte makes it fail there (db:restore reads the whole file once before it writes anything).
 * @param {Buffer} key
 */
export function decryptStream(key) {
	/** @type {import('node:crypto').DecipherGCM | null} */
	let decipher = null;
	let held = Buffer.alloc(0);
	return new Transform({
		transform(chunk, _encoding, done) {
			held = Buffer.concat([held, /** @type {Buffer} */ (chunk)]);
			if (!decipher) {
				if (held.length < MAGIC.length + IV_BYTES) return done();
				if (!held.subarray(0, MAGIC.length).equals(MAGIC)) return done(new Error('not an encrypted backup'));
				decipher = createDecipheriv(ALGORITHM, key, held.subarray(MAGIC.length, MAGIC.length + IV_BYTES));
				held = held.subarray(MAGIC.length + IV_BYTES);
			}
			// The last 16 bytes may be the tag: kept back until the end.
			const ready = held.subarray(0, Math.max(0, held.length - TAG_BYTES));
			held = held.subarray(ready.length);
			done(null, decipher.update(ready));
		},
		flush(done) {
			if (!decipher || held.length !== TAG_BYTES) return done(new Error('the encrypted backup is cut short'));
			decipher.setAuthTag(held);
			try {
				done(null, decipher.final());
			} catch {
				done(new Error('the encrypted backup does not open with this key, or it was changed'));
			}
		}
	});
}

/**
 * Checks a sealed backup's tag over the whole file, keeping nothing of it: a wrong key or a changed
 * byte is said before anything reads what it holds.
 * @param {string} file
 * @param {Buffer} key
 */
export async function checkSealed(file, key) {
	const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
	await pipeline(createReadStream(file), decryptStream(key), discard);
}
