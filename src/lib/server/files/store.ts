import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { FilesConfig } from '../platform/config';

/** Bytes to store: in memory, or a stream of a known length (S3 needs the length; see README.md). */
export type BlobBody = Uint8Array | { stream: Readable; length: number };

/**
 * Where the bytes of stored files live, by their sha256 (hex): FILES_DIR, or an S3-compatible bucket.
 * `put` leaves either the whole file or nothing; `read` is null for a hash it does not hold.
 */
export interface BlobStore {
	put(sha256: string, body: BlobBody): Promise<void>;
	read(sha256: string): Promise<ReadableStream<Uint8Array> | null>;
	remove(sha256: string): Promise<void>;
}

const HASH = /^[0-9a-f]{64}$/;
const checked = (sha256: string) => {
	if (!HASH.test(sha256)) throw new Error('not a sha256');
	return sha256;
};

/**
 * FILES_DIR: `<dir>/<first two hex>/<sha256>`. A write goes to a temporary name in `<dir>/.incoming`,
 * is flushed, then renamed into place, so a cut-off or failed write (disk full) leaves no file behind.
 */
export function diskStore(dir: string): BlobStore {
	const file = (sha256: string) => path.join(dir, checked(sha256).slice(0, 2), sha256);
	return {
		async put(sha256, body) {
			const target = file(sha256);
			if (await stat(target).catch(() => null)) return; // the same bytes are there already
			const incoming = path.join(dir, '.incoming');
			await mkdir(incoming, { recursive: true, mode: 0o700 });
			await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
			const temporary = path.join(incoming, `${sha256}.${randomBytes(6).toString('hex')}`);
			try {
				const handle = await open(temporary, 'wx', 0o600);
				try {
					if (body instanceof Uint8Array) await handle.writeFile(body);
					else for await (const chunk of body.stream) await handle.write(chunk as Uint8Array);
					await handle.sync();
				} finally {
					await handle.close();
				}
				await rename(temporary, target);
			} catch (err) {
				await rm(temporary, { force: true });
				throw err;
			}
		},
		async read(sha256) {
			const target = file(sha256);
			if (!(await stat(target).catch(() => null))) return null;
			return Readable.toWeb(createReadStream(target)) as ReadableStream<Uint8Array>;
		},
		async remove(sha256) {
			await rm(file(sha256), { force: true });
		}
	};
}

/**
 * An S3-compatible bucket, one object per sha256. Checksums only when the service requires them: the
 * SDK's default streams a body `aws-chunked` with a trailing checksum, which some S3-compatible servers
 * (s3rver 3) store as it arrives, framing included.
 */
export function s3Store(s3: NonNullable<FilesConfig['s3']>): BlobStore {
	const client = new S3Client({
		endpoint: s3.endpoint,
		region: s3.region,
		forcePathStyle: true,
		credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
		requestChecksumCalculation: 'WHEN_REQUIRED',
		responseChecksumValidation: 'WHEN_REQUIRED'
	});
	const key = (sha256: string) => `files/${checked(sha256)}`;
	return {
		async put(sha256, body) {
			await client.send(
				new PutObjectCommand({
					Bucket: s3.bucket,
					Key: key(sha256),
					Body: body instanceof Uint8Array ? body : body.stream,
					ContentLength: body instanceof Uint8Array ? body.length : body.length,
					ContentType: 'application/octet-stream'
				})
			);
		},
		async read(sha256) {
			try {
				const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key(sha256) }));
				return object.Body ? (object.Body.transformToWebStream() as ReadableStream<Uint8Array>) : null;
			} catch (err) {
				if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
				throw err;
			}
		},
		async remove(sha256) {
			await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key(sha256) }));
		}
	};
}

let cached: { config: FilesConfig; store: BlobStore } | null = null;

/** The store this configuration names (S3 when set, else FILES_DIR), made once per process. */
export function blobStoreOf(config: FilesConfig): BlobStore {
	if (cached?.config !== config) cached = { config, store: config.s3 ? s3Store(config.s3) : diskStore(config.dir) };
	return cached.store;
}
