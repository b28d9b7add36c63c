import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { FilesConfig } from '../platform/config';

/**
 * Bytes written under a temporary name as they arrived (`stage`), their hash not known before the last
 * one: `keep` moves them to that hash's place (whole, or not at all), `drop` removes them. Either, once.
 */
export interface StagedBlob {
	keep(sha256: string): Promise<void>;
	drop(): Promise<void>;
}

/** What the store holds, as the orphan sweep lists it: a kept file (by hash) or a temporary one (by name). */
export type StoredEntry =
	{ kind: 'file'; sha256: string; modified: Date } | { kind: 'temporary'; name: string; modified: Date };

/**
 * Where the bytes of stored files live, by their sha256 (hex): FILES_DIR, or an S3-compatible bucket.
 * `put` leaves either the whole file or nothing; `read` is null for a hash it does not hold. `stage`
 * writes a stream as it arrives (an upload: nothing held in memory) under a temporary name; a source
 * that fails (an upload cut off, refused halfway) leaves nothing. `entries` and `removeOld` are the orphan
 * sweep's (sweep.ts): `removeOld` looks at the entry's time again just before, and leaves it if it was
 * written at or after `olderThan` (kept again since, or an upload under way); true when it removed it.
 */
export interface BlobStore {
	put(sha256: string, body: Uint8Array): Promise<void>;
	stage(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StagedBlob>;
	read(sha256: string): Promise<ReadableStream<Uint8Array> | null>;
	remove(sha256: string): Promise<void>;
	entries(): AsyncIterable<StoredEntry>;
	removeOld(entry: StoredEntry, olderThan: Date): Promise<boolean>;
}

const HASH = /^[0-9a-f]{64}$/;
const checked = (sha256: string) => {
	if (!HASH.test(sha256)) throw new Error('not a sha256');
	return sha256;
};
/** A temporary's name: random hex, nothing from the request. */
const TEMPORARY = /^[0-9a-f]{24}$/;
const temporaryName = () => randomBytes(12).toString('hex');
const checkedTemporary = (name: string) => {
	if (!TEMPORARY.test(name)) throw new Error('not a temporary name');
	return name;
};

/**
 * FILES_DIR: `<dir>/<first two hex>/<sha256>`. A write goes to a temporary name in `<dir>/.incoming`,
 * is flushed, then renamed into place, so a cut-off or failed write (disk full) leaves no file behind.
 */
export function diskStore(dir: string): BlobStore {
	const file = (sha256: string) => path.join(dir, checked(sha256).slice(0, 2), sha256);
	const incoming = path.join(dir, '.incoming');
	// put()'s temporaries are `<sha256>.<12 hex>`, stage()'s 24 hex: both only ever in .incoming.
	const temporaryFile = (name: string) => {
		if (!/^(?:[0-9a-f]{64}\.[0-9a-f]{12}|[0-9a-f]{24})$/.test(name)) throw new Error('not a temporary name');
		return path.join(incoming, name);
	};
	return {
		async put(sha256, body) {
			const target = file(sha256);
			// The same bytes are there already: new again, so the sweep's grace counts from now (sweep.ts).
			if (await stat(target).catch(() => null)) {
				const now = new Date();
				await utimes(target, now, now);
				return;
			}
			const incoming = path.join(dir, '.incoming');
			await mkdir(incoming, { recursive: true, mode: 0o700 });
			await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
			const temporary = path.join(incoming, `${sha256}.${randomBytes(6).toString('hex')}`);
			try {
				const handle = await open(temporary, 'wx', 0o600);
				try {
					await handle.writeFile(body);
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
		async stage(chunks) {
			await mkdir(incoming, { recursive: true, mode: 0o700 });
			const temporary = path.join(incoming, temporaryName());
			try {
				const handle = await open(temporary, 'wx', 0o600);
				try {
					for await (const chunk of chunks) await handle.write(chunk);
					await handle.sync();
				} finally {
					await handle.close();
				}
			} catch (err) {
				await rm(temporary, { force: true });
				throw err;
			}
			return {
				// A rename: the file is whole under its hash or not there. Over the same bytes kept before, it
				// replaces them and is new again (the sweep's grace counts from now).
				async keep(sha256) {
					const target = file(sha256);
					try {
						await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
						await rename(temporary, target);
					} catch (err) {
						await rm(temporary, { force: true });
						throw err;
					}
				},
				async drop() {
					await rm(temporary, { force: true });
				}
			};
		},
		async read(sha256) {
			const target = file(sha256);
			if (!(await stat(target).catch(() => null))) return null;
			return Readable.toWeb(createReadStream(target)) as ReadableStream<Uint8Array>;
		},
		async remove(sha256) {
			await rm(file(sha256), { force: true });
		},
		async *entries() {
			const folders = await readdir(dir, { withFileTypes: true }).catch(() => []);
			for (const folder of folders) {
				if (!folder.isDirectory()) continue;
				const temporaries = folder.name === '.incoming';
				if (!temporaries && !/^[0-9a-f]{2}$/.test(folder.name)) continue;
				for (const name of await readdir(path.join(dir, folder.name)).catch(() => [])) {
					const seen = await stat(path.join(dir, folder.name, name)).catch(() => null);
					if (!seen?.isFile()) continue;
					if (temporaries) yield { kind: 'temporary', name, modified: seen.mtime };
					else if (HASH.test(name) && name.startsWith(folder.name))
						yield { kind: 'file', sha256: name, modified: seen.mtime };
				}
			}
		},
		async removeOld(entry, olderThan) {
			const target = entry.kind === 'file' ? file(entry.sha256) : temporaryFile(entry.name);
			const seen = await stat(target).catch(() => null);
			if (!seen || seen.mtime >= olderThan) return false;
			await rm(target, { force: true });
			return true;
		}
	};
}

/** S3's smallest part of a multipart upload (but the last). */
const PART_BYTES = 5 * 1024 * 1024;

type S3Sdk = typeof import('@aws-sdk/client-s3');
/**
 * The AWS SDK, imported with the first S3 request: a static import loaded it at every server start, S3
 * or not, about 0.3 s of CPU each (bench/README.md, CI time).
 */
const s3Sdk = (): Promise<S3Sdk> => import('@aws-sdk/client-s3');

/**
 * An S3-compatible bucket, one object per sha256. Checksums only when the service requires them: the
 * SDK's default streams a body `aws-chunked` with a trailing checksum, which some S3-compatible servers
 * (s3rver 3) store as it arrives, framing included.
 */
export function s3Store(s3: NonNullable<FilesConfig['s3']>): BlobStore {
	let connected: Promise<{ client: S3Client; sdk: S3Sdk }> | null = null;
	/** The SDK and the client, made with the first request. */
	const connect = () =>
		(connected ??= s3Sdk()
			.then((sdk) => ({
				sdk,
				client: new sdk.S3Client({
					endpoint: s3.endpoint,
					region: s3.region,
					forcePathStyle: true,
					credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
					requestChecksumCalculation: 'WHEN_REQUIRED',
					responseChecksumValidation: 'WHEN_REQUIRED'
				})
			}))
			.catch((err: unknown) => {
				connected = null;
				throw err;
			}));
	const key = (sha256: string) => `files/${checked(sha256)}`;
	const temporaryKey = (name: string) => `incoming/${checkedTemporary(name)}`;
	const Bucket = s3.bucket;
	/** When `Key` was last written, or null when there is no such object. */
	const modifiedOf = async (Key: string) => {
		const { client, sdk } = await connect();
		try {
			return (await client.send(new sdk.HeadObjectCommand({ Bucket, Key }))).LastModified ?? null;
		} catch (err) {
			if ((err as { name?: string }).name === 'NotFound' || (err as { name?: string }).name === 'NoSuchKey')
				return null;
			throw err;
		}
	};

	return {
		async put(sha256, body) {
			const { client, sdk } = await connect();
			await client.send(
				new sdk.PutObjectCommand({
					Bucket,
					Key: key(sha256),
					Body: body,
					ContentLength: body.length,
					ContentType: 'application/octet-stream'
				})
			);
		},
		// S3 needs each request's length first: a file under PART_BYTES is one PutObject of what arrived, a
		// larger one a multipart upload of PART_BYTES parts (at most one part is held in memory), aborted on a
		// failure. Under `incoming/`, then copied to its hash's key by `keep`.
		async stage(chunks) {
			const { client, sdk } = await connect();
			const name = temporaryName();
			const Key = temporaryKey(name);
			let held: Uint8Array[] = [];
			let heldBytes = 0;
			let UploadId: string | undefined;
			const parts: { ETag: string | undefined; PartNumber: number }[] = [];
			const sendPart = async () => {
				UploadId ??= (
					await client.send(
						new sdk.CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'application/octet-stream' })
					)
				).UploadId;
				const Body = Buffer.concat(held);
				held = [];
				heldBytes = 0;
				const PartNumber = parts.length + 1;
				const sent = await client.send(
					new sdk.UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body, ContentLength: Body.length })
				);
				parts.push({ ETag: sent.ETag, PartNumber });
			};
			try {
				for await (const chunk of chunks) {
					held.push(chunk);
					heldBytes += chunk.byteLength;
					if (heldBytes >= PART_BYTES) await sendPart();
				}
				if (UploadId === undefined) {
					const Body = Buffer.concat(held);
					await client.send(
						new sdk.PutObjectCommand({
							Bucket,
							Key,
							Body,
							ContentLength: Body.length,
							ContentType: 'application/octet-stream'
						})
					);
				} else {
					if (heldBytes > 0) await sendPart();
					await client.send(
						new sdk.CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } })
					);
				}
			} catch (err) {
				held = [];
				if (UploadId !== undefined)
					await client.send(new sdk.AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
				throw err;
			}
			return {
				async keep(sha256) {
					try {
						await client.send(
							new sdk.CopyObjectCommand({
								Bucket,
								Key: key(sha256),
								CopySource: `${encodeURIComponent(Bucket)}/${Key}`
							})
						);
					} finally {
						await client.send(new sdk.DeleteObjectCommand({ Bucket, Key })).catch(() => {});
					}
				},
				async drop() {
					await client.send(new sdk.DeleteObjectCommand({ Bucket, Key }));
				}
			};
		},
		async read(sha256) {
			const { client, sdk } = await connect();
			try {
				const object = await client.send(new sdk.GetObjectCommand({ Bucket, Key: key(sha256) }));
				return object.Body ? (object.Body.transformToWebStream() as ReadableStream<Uint8Array>) : null;
			} catch (err) {
				if (err instanceof sdk.NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
				throw err;
			}
		},
		async remove(sha256) {
			const { client, sdk } = await connect();
			await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key(sha256) }));
		},
		async *entries() {
			const { client, sdk } = await connect();
			for (const prefix of ['files/', 'incoming/'] as const) {
				let ContinuationToken: string | undefined;
				do {
					const page = await client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
					for (const object of page.Contents ?? []) {
						const rest = object.Key?.slice(prefix.length) ?? '';
						const modified = object.LastModified ?? new Date();
						if (prefix === 'files/' && HASH.test(rest)) yield { kind: 'file', sha256: rest, modified };
						else if (prefix === 'incoming/' && TEMPORARY.test(rest)) yield { kind: 'temporary', name: rest, modified };
					}
					ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
				} while (ContinuationToken);
			}
			// Multipart uploads a crash left open hold no object: aborted here once old (the bucket's own
			// AbortIncompleteMultipartUpload rule does the same; a server without the call is skipped).
			const open = await client
				.send(new sdk.ListMultipartUploadsCommand({ Bucket, Prefix: 'incoming/' }))
				.catch(() => ({ Uploads: [] }));
			for (const upload of open.Uploads ?? []) {
				const rest = upload.Key?.slice('incoming/'.length) ?? '';
				if (TEMPORARY.test(rest) && upload.UploadId)
					yield { kind: 'temporary', name: `${rest}:${upload.UploadId}`, modified: upload.Initiated ?? new Date() };
			}
		},
		async removeOld(entry, olderThan) {
			const { client, sdk } = await connect();
			if (entry.kind === 'temporary' && entry.name.includes(':')) {
				// An open multipart upload: its start is all there is to go by.
				const [object, UploadId] = entry.name.split(':', 2) as [string, string];
				if (entry.modified >= olderThan) return false;
				await client.send(new sdk.AbortMultipartUploadCommand({ Bucket, Key: temporaryKey(object), UploadId }));
				return true;
			}
			const Key = entry.kind === 'file' ? key(entry.sha256) : temporaryKey(entry.name);
			const modified = await modifiedOf(Key);
			if (!modified || modified >= olderThan) return false;
			await client.send(new sdk.DeleteObjectCommand({ Bucket, Key }));
			return true;
		}
	};
}

let cached: { config: FilesConfig; store: BlobStore } | null = null;

/** The store this configuration names (S3 when set, else FILES_DIR), made once per process. */
export function blobStoreOf(config: FilesConfig): BlobStore {
	if (cached?.config !== config) cached = { config, store: config.s3 ? s3Store(config.s3) : diskStore(config.dir) };
	return cached.store;
}
