import { mkdtempSync, rmSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskStore, s3Store, type BlobStore } from '$lib/server/files/store';

// The file store against a real S3-compatible server (s3rver on loopback) and a real folder: bytes put as a
// buffer, and an upload staged from a stream of chunks, read back the same; a removed or unknown hash reads
// as none. s3rver 3 stores an `aws-chunked` upload as it arrives, framing included: a body sent that way
// would read back longer than it was, which the byte-for-byte reads here would catch.
const dir = mkdtempSync(path.join(tmpdir(), 'portal-s3-'));
const folder = mkdtempSync(path.join(tmpdir(), 'portal-files-'));
let server: S3rver;
let s3: BlobStore;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const read = async (store: BlobStore, hash: string) => {
	const body = await store.read(hash);
	return body ? Buffer.from(await new Response(body).arrayBuffer()) : null;
};

beforeAll(async () => {
	server = new S3rver({
		address: '127.0.0.1',
		port: 0,
		silent: true,
		directory: dir,
		configureBuckets: [{ name: 'portal' }]
	});
	const { port } = await server.run();
	s3 = s3Store({
		endpoint: `http://127.0.0.1:${port}`,
		bucket: 'portal',
		accessKeyId: 'S3RVER',
		secretAccessKey: 'S3RVER',
		region: 'us-east-1'
	});
});
afterAll(async () => {
	await server?.close();
	rmSync(dir, { recursive: true, force: true });
	rmSync(folder, { recursive: true, force: true });
});

describe.each([
	['S3 (s3rver)', () => s3],
	['FILES_DIR', () => diskStore(folder)]
])('the file store: %s', (_, store) => {
	const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300 * 1024, 7)]);
	const hash = sha(bytes);

	it('a buffer goes in and comes back byte for byte', async () => {
		await store().put(hash, new Uint8Array(bytes));
		expect(await read(store(), hash)).toEqual(bytes);
	});

	// An upload streamed to the store (files/receive.ts): written as it arrives under a temporary name, kept
	// under its hash or dropped; on S3 a file over 5 MiB goes as a multipart upload, one part held at a time.
	const temporaries = async () => {
		const names: string[] = [];
		for await (const entry of store().entries()) if (entry.kind === 'temporary') names.push(entry.name);
		return names;
	};
	it.each([
		['a small file', 300 * 1024],
		['a file over one S3 part (5 MiB)', 11 * 1024 * 1024 + 17]
	])('%s staged from chunks, then kept, comes back byte for byte; nothing temporary is left', async (_, size) => {
		const staged = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(size - 9)]);
		// As an upload arrives: 64 KiB at a time, each after a turn of the event loop.
		const chunks = async function* () {
			for (let at = 0; at < staged.length; at += 64 * 1024) {
				await Promise.resolve();
				yield staged.subarray(at, at + 64 * 1024);
			}
		};
		const blob = await store().stage(chunks());
		expect(await read(store(), sha(staged))).toBeNull();
		await blob.keep(sha(staged));
		// By hash: toEqual walks an 11 MiB Buffer byte by byte for minutes.
		const back = await read(store(), sha(staged));
		expect(back && sha(back)).toBe(sha(staged));
		expect(await temporaries()).toEqual([]);
	});

	it('a staged file dropped, or one whose source fails halfway, leaves nothing', async () => {
		const dropped = await store().stage([Buffer.from('%PDF-1.4\n dropped')]);
		expect(await temporaries()).toHaveLength(1);
		await dropped.drop();
		expect(await temporaries()).toEqual([]);
		const cutOff = async function* () {
			yield Buffer.alloc(6 * 1024 * 1024, 1); // past one S3 part: the multipart upload is aborted
			await Promise.resolve();
			throw new Error('the client went away');
		};
		await expect(store().stage(cutOff())).rejects.toThrow('the client went away');
		expect(await temporaries()).toEqual([]);
	});

	it('a removed or unknown hash reads as none', async () => {
		await store().remove(hash);
		expect(await read(store(), hash)).toBeNull();
		expect(await read(store(), '0'.repeat(64))).toBeNull();
	});
});
