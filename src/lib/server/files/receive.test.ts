import { createHash } from 'node:crypto';
import { isHttpError } from '@sveltejs/kit';
import { describe, expect, it } from 'vitest';
import type { Question } from '$lib/forms/questions';
import { MAX_FORM_FIELDS } from '../platform/forms';
import { ReceivedFile, receiveForm } from './receive';
import type { BlobStore } from './store';

// The apply form's body read as it streams in (receive.ts): each file of a `file` question checked from its
// first bytes before anything is written, staged while counted, or dropped; text parts as readForm reads them.
const portfolio: Question = {
	key: 'portfolio',
	label: 'Portfolio',
	type: 'file',
	required: false,
	accept: ['application/pdf'],
	maxFiles: 1,
	maxBytes: 64 * 1024
};
const questions = () => Promise.resolve([portfolio]);

/** A store that records what reaches it: every chunk staged, and whether it was kept or dropped. */
function recordingStore() {
	const staged: { bytes: number; kept: string | null; dropped: boolean }[] = [];
	const store = {
		async stage(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
			const entry = { bytes: 0, kept: null as string | null, dropped: false };
			staged.push(entry);
			for await (const chunk of chunks) entry.bytes += chunk.length;
			return {
				keep: (sha256: string) => Promise.resolve(void (entry.kept = sha256)),
				drop: () => Promise.resolve(void (entry.dropped = true))
			};
		}
	} as unknown as BlobStore;
	return { store, staged };
}

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(10_000, 7)]);
const post = (form: FormData) => new Request('http://portal.test/apply', { method: 'POST', body: form });
const form = (file: Blob | null, name = 'cv.pdf') => {
	const sent = new FormData();
	sent.append('displayName', 'Ada ✓');
	if (file) sent.append('answers.portfolio', file, name);
	return sent;
};
async function refusal(request: Request) {
	const { store, staged } = recordingStore();
	try {
		await receiveForm(request, questions, store);
	} catch (err) {
		if (isHttpError(err)) return { status: err.status, code: (err.body as { code?: string }).code, staged };
		throw err;
	}
	throw new Error('the form was read');
}

describe('receiveForm', () => {
	it('stages an accepted file as it arrives, with its hash and size; text as sent', async () => {
		const { store, staged } = recordingStore();
		const got = await receiveForm(post(form(new Blob([PDF]))), questions, store);
		expect(got.form.get('displayName')).toBe('Ada ✓');
		const file = got.form.get('answers.portfolio');
		expect(file).toBeInstanceOf(ReceivedFile);
		expect((file as ReceivedFile).outcome).toMatchObject({
			kind: 'staged',
			type: 'application/pdf',
			bytes: PDF.length,
			sha256: createHash('sha256').update(PDF).digest('hex')
		});
		expect(staged).toEqual([{ bytes: PDF.length, kept: null, dropped: false }]);
		await got.dropStaged();
		expect(staged[0]!.dropped).toBe(true);
	});

	it.each([
		['HTML named .pdf', Buffer.from('<!doctype html><script>alert(1)</script>'), 'wrong_type'],
		['a PNG where only PDF is accepted', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'wrong_type']
	])('%s: refused from its first bytes, nothing reaches the store', async (_, bytes, why) => {
		const { store, staged } = recordingStore();
		const got = await receiveForm(post(form(new Blob([new Uint8Array(bytes)]))), questions, store);
		expect((got.form.get('answers.portfolio') as ReceivedFile).outcome).toEqual({ kind: 'refused', why });
		expect(staged).toEqual([]);
	});

	it('a file over the question’s size: dropped halfway, never kept', async () => {
		const { store, staged } = recordingStore();
		const big = Buffer.concat([PDF, Buffer.alloc(64 * 1024)]);
		const got = await receiveForm(post(form(new Blob([new Uint8Array(big)]))), questions, store);
		expect((got.form.get('answers.portfolio') as ReceivedFile).outcome).toEqual({ kind: 'refused', why: 'too_big' });
		// What the store was given before the size passed is its to remove (the disk and S3 stores do: files-s3.test.ts).
		expect(staged.every((s) => s.kept === null && s.bytes <= 64 * 1024)).toBe(true);
	});

	it('a browser’s empty file input reads as empty; a file in a field no question asks for is not kept', async () => {
		const { store, staged } = recordingStore();
		// As a browser sends a file input left empty: filename="" and no bytes (undici's FormData drops the filename).
		const b = 'xyz';
		const body = Buffer.concat([
			Buffer.from(
				`--${b}\r\nContent-Disposition: form-data; name="answers.portfolio"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n` +
					`--${b}\r\nContent-Disposition: form-data; name="answers.other"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`
			),
			PDF,
			Buffer.from(`\r\n--${b}--\r\n`)
		]);
		const request = new Request('http://portal.test/apply', {
			method: 'POST',
			body: new Uint8Array(body),
			headers: { 'content-type': `multipart/form-data; boundary=${b}` }
		});
		const got = await receiveForm(request, questions, store);
		expect((got.form.get('answers.portfolio') as ReceivedFile).outcome).toEqual({ kind: 'empty' });
		expect((got.form.get('answers.other') as ReceivedFile).outcome).toEqual({ kind: 'refused', why: 'not_kept' });
		expect(staged).toEqual([]);
	});

	it('text that is not UTF-8, a truncated body, no boundary: 400, what was staged dropped', async () => {
		const b = 'xyz';
		const bad = (body: Buffer, type = `multipart/form-data; boundary=${b}`) =>
			new Request('http://portal.test/apply', {
				method: 'POST',
				body: new Uint8Array(body),
				headers: { 'content-type': type }
			});
		const latin1 = Buffer.concat([
			Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="displayName"\r\n\r\n`),
			Buffer.from([0xc3, 0x28]),
			Buffer.from(`\r\n--${b}--\r\n`)
		]);
		expect(await refusal(bad(latin1))).toMatchObject({ status: 400, code: 'invalid_request' });
		const cut = Buffer.concat([
			Buffer.from(
				`--${b}\r\nContent-Disposition: form-data; name="answers.portfolio"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`
			),
			PDF
		]);
		const truncated = await refusal(bad(cut));
		expect(truncated).toMatchObject({ status: 400, code: 'invalid_request' });
		expect(truncated.staged.every((s) => s.kept === null && (s.dropped || s.bytes <= PDF.length))).toBe(true);
		expect(await refusal(bad(Buffer.from('x'), 'multipart/form-data'))).toMatchObject({ status: 400 });
	});

	it('more than MAX_FORM_FIELDS parts: 413 too_many_fields', async () => {
		const sent = new FormData();
		for (let i = 0; i <= MAX_FORM_FIELDS; i++) sent.append(`f${i}`, 'x');
		expect(await refusal(post(sent))).toMatchObject({ status: 413, code: 'too_many_fields' });
	});
});
