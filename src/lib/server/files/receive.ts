import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { error, isHttpError } from '@sveltejs/kit';
import { FILE_LIMITS, answerField, mebibytes, type FileType, type Question } from '$lib/forms/questions';
import { m } from '$lib/paraglide/messages';
import {
	FormFields,
	MAX_FORM_FIELDS,
	readForm,
	tooManyFields,
	unreadable,
	type FormValue,
	type StreamedFile
} from '../platform/forms';
import { SNIFF_BYTES, streamedType } from './detect';
import type { BlobStore, StagedBlob } from './store';

/**
 * What became of one file part of a streamed form (issue 58): its bytes staged in the store (under a
 * temporary name, checked: type from the first bytes, size, text all UTF-8), or refused as they arrived
 * with nothing kept. `inspectUploads` turns it into an upload or the question's message.
 */
export class ReceivedFile implements StreamedFile {
	readonly streamed = true;
	constructor(
		readonly name: string,
		readonly outcome:
			| { kind: 'staged'; type: FileType; bytes: number; sha256: string; staged: StagedBlob }
			/** A browser's file input left empty: no name, no bytes. */
			| { kind: 'empty' }
			/** Not kept: over the question's size, not of a type it accepts, past its number of files, or not a file question. */
			| { kind: 'refused'; why: 'too_big' | 'wrong_type' | 'not_kept' }
	) {}
}

/** A form read as it streamed in, its files' bytes in the store (staged) rather than in memory. */
export interface ReceivedForm {
	form: FormFields<FormValue>;
	/** The store failed while it wrote (disk full, bucket down): the caller answers 503 files_unavailable. */
	storeFailed: boolean;
	/** Removes what was staged and never kept (call once the request's outcome is known; kept ones stay). */
	dropStaged(): Promise<void>;
}

/** What a question allows its files, by the field they are posted in (`answers.<key>`). */
type Rules = Map<string, { maxFiles: number; maxBytes: number; accept: readonly string[] }>;

const rulesOf = (questions: readonly Question[]): Rules =>
	new Map(
		questions
			.filter((q) => q.type === 'file')
			.map((q) => [
				answerField(q.key),
				{ maxFiles: q.maxFiles ?? 1, maxBytes: q.maxBytes ?? 0, accept: q.accept ?? [] }
			])
	);

/** A file that stopped being acceptable halfway (over the size, not text after all): nothing is kept. */
class Refused extends Error {
	constructor(readonly why: 'too_big' | 'wrong_type') {
		super(why);
	}
}

/**
 * The apply form's body read as it arrives (`@fastify/busboy`), each file part of a `file` question
 * streamed into the store while its sha256 is computed: its type told from its first SNIFF_BYTES before
 * anything is written, its question's size and number of files enforced as it goes (past them, the rest
 * is read and dropped; the question's message follows). Text parts are held (they are small) and must be
 * UTF-8, as readForm asks. A body that is not multipart goes to readForm. A body cut off or malformed:
 * 400, what was staged removed; over the route's size (body-limit.ts counts it as it is read): its 413;
 * more than MAX_FORM_FIELDS parts: 413 `too_many_fields`. The caller calls `dropStaged` when done.
 * `questions` (the form's, read only for a multipart body) say what each `file` question allows.
 */
export async function receiveForm(
	request: Request,
	questions: () => Promise<readonly Question[]>,
	store: BlobStore
): Promise<ReceivedForm> {
	const type = request.headers.get('content-type') ?? '';
	if (type.split(';', 1)[0]!.trim().toLowerCase() !== 'multipart/form-data' || !request.body)
		return { form: await readForm(request), storeFailed: false, dropStaged: async () => {} };
	const rules = rulesOf(await questions());
	let busboy: BusboyInstance;
	try {
		busboy = Busboy({
			headers: { 'content-type': type },
			preservePath: true, // the name as sent: safeName makes it safe
			isPartAFile: () => true, // every part's raw bytes: a text part's UTF-8 is checked here, not decoded blindly
			limits: { parts: MAX_FORM_FIELDS }
		});
	} catch {
		return unreadable();
	}
	const entries: [string, FormValue | null][] = [];
	const tasks: Promise<void>[] = [];
	const received: ReceivedFile[] = [];
	const counts = new Map<string, number>();
	const open = new Set<Readable>();
	let storeFailed = false;
	let failure: { err: unknown } | null = null;
	const source = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream<Uint8Array>);

	const parsed = new Promise<void>((resolve, reject) => {
		const fail = (err: unknown) => {
			if (failure) return;
			failure = { err };
			// Every part still streaming ends now, so no task waits on it: with one error for them all (up to
			// MAX_FORM_FIELDS parts; an Error each, and its stack, held every other request behind this one).
			const reason = err instanceof Error ? err : new Error('form unreadable');
			for (const stream of open) stream.destroy(reason);
			// The rest of the body is read and dropped, not cut: the client then reads the answer (a 413, a
			// 400) rather than a reset connection. The route's limit still bounds it.
			source.unpipe(busboy);
			source.resume();
			reject(new Error('form not read')); // the reason is `failure`'s
		};
		busboy.on('file', (name: string, stream: Readable, filename: string | undefined) => {
			open.add(stream);
			stream.once('close', () => open.delete(stream));
			stream.once('end', () => open.delete(stream));
			const at = entries.push([name, null]) - 1;
			const task = async () => {
				if (name === undefined || (filename ?? '').includes('\uFFFD') || name.includes('\uFFFD')) {
					await drain(stream);
					return unreadable();
				}
				if (filename === undefined) {
					const bytes = await collect(stream);
					// The parser would turn bytes that are not UTF-8 into U+FFFD and let them through as text.
					if (!isUtf8(bytes)) return unreadable();
					entries[at] = [name, bytes.toString('utf8')];
					return;
				}
				const file = await receiveFile(stream, filename, rules.get(name), () => {
					const n = (counts.get(name) ?? 0) + 1;
					counts.set(name, n);
					return n;
				});
				if (file === 'store failed') {
					storeFailed = true;
					entries[at] = [name, new ReceivedFile(filename, { kind: 'refused', why: 'not_kept' })];
					return;
				}
				received.push(file);
				entries[at] = [name, file];
			};
			tasks.push(task().catch(fail));
		});
		busboy.on('partsLimit', () => fail(tooManyFieldsError()));
		busboy.on('error', fail);
		busboy.on('finish', resolve);
		source.on('error', fail);
	});
	source.pipe(busboy);

	const dropStaged = async () => {
		for (const file of received.splice(0))
			if (file.outcome.kind === 'staged') await file.outcome.staged.drop().catch(() => {});
	};
	try {
		await parsed;
		await Promise.all(tasks);
		if (failure) throw new Error('form not read');
	} catch (caught) {
		await Promise.allSettled(tasks);
		await dropStaged();
		const err = failure ? (failure as { err: unknown }).err : caught;
		// Over the route's limit (body-limit.ts), too many fields: that answer; anything else, 400.
		if (isHttpError(err)) error(err.status, err.body);
		// adapter-node's own count of a chunked body (given the same 25 MiB, deploy/server.js) may pass the
		// limit first: its 413 is not an HttpError, and says the same as body-limit.ts's would.
		if ((err as { status?: unknown } | null)?.status === 413)
			error(413, { code: 'body_too_large', message: m.form_body_too_large({ max: mebibytes(FILE_LIMITS.maxBody) }) });
		return unreadable();
	}
	if (storeFailed) await dropStaged();
	return {
		form: new FormFields<FormValue>(entries.filter((e): e is [string, FormValue] => e[1] !== null)),
		storeFailed,
		dropStaged
	};

	/**
	 * One file part: read until its type can be told, then either dropped (not asked for, one too many, of a
	 * type not accepted) or staged while hashed, counted and (text) checked; over the size, dropped halfway.
	 */
	async function receiveFile(
		stream: Readable,
		filename: string,
		rule: ReturnType<Rules['get']>,
		count: () => number
	): Promise<ReceivedFile | 'store failed'> {
		const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
		const head: Buffer[] = [];
		let headBytes = 0;
		let ended = false;
		while (headBytes < SNIFF_BYTES) {
			const next = await chunks.next();
			if (next.done) {
				ended = true;
				break;
			}
			head.push(next.value);
			headBytes += next.value.length;
		}
		const first = Buffer.concat(head);
		const refuse = async (why: 'too_big' | 'wrong_type' | 'not_kept') => {
			if (!ended) await rest(chunks);
			return new ReceivedFile(filename, { kind: 'refused', why });
		};
		if (ended && first.length === 0 && filename === '') return new ReceivedFile(filename, { kind: 'empty' });
		if (!rule || count() > rule.maxFiles) return refuse('not_kept');
		if (first.length > rule.maxBytes) return refuse('too_big');
		const sniffed = streamedType();
		const type = sniffed.start(first, ended);
		if (!type || !rule.accept.includes(type)) return refuse('wrong_type');
		const hash = createHash('sha256');
		let bytes = 0;
		const checked = async function* () {
			for (let chunk: Buffer | null = first; chunk;) {
				bytes += chunk.length;
				if (bytes > rule.maxBytes) throw new Refused('too_big');
				if (type === 'text/plain' && chunk !== first && !sniffed.more(chunk)) throw new Refused('wrong_type');
				hash.update(chunk);
				yield chunk;
				if (ended) break;
				const next = await chunks.next();
				if (next.done) ended = true;
				chunk = next.done ? null : next.value;
			}
			if (type === 'text/plain' && !sniffed.end()) throw new Refused('wrong_type');
		};
		let staged: StagedBlob;
		try {
			staged = await store.stage(checked());
		} catch (err) {
			if (!ended) await rest(chunks); // throws when the body itself failed (cut off)
			if (err instanceof Refused) return new ReceivedFile(filename, { kind: 'refused', why: err.why });
			if (failure || isHttpError(err) || stream.errored) throw err;
			return 'store failed';
		}
		return new ReceivedFile(filename, {
			kind: 'staged',
			type,
			bytes,
			sha256: hash.digest('hex'),
			staged
		});
	}
}

const tooManyFieldsError = () => {
	try {
		return tooManyFields();
	} catch (err) {
		return err;
	}
};

/** The rest of a part read and dropped (the parser waits until each part is read). */
async function rest(chunks: AsyncIterator<Buffer>): Promise<void> {
	while (!(await chunks.next()).done);
}

const drain = (stream: Readable) => rest(stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>).catch(() => {});

/** A text part's bytes (the body's limit bounds them). */
function collect(stream: Readable): Promise<Buffer> {
	// Listeners, not `for await`: a form may have MAX_FORM_FIELDS text parts, and an async iterator each (with
	// its promises) was a large share of what one such post held every other request for (tests/http/fuzz.test.ts).
	return new Promise((resolve, reject) => {
		const parts: Buffer[] = [];
		let ended = false;
		stream.on('data', (chunk: Buffer) => parts.push(chunk));
		stream.once('end', () => {
			ended = true;
			resolve(Buffer.concat(parts));
		});
		// `on`, not `once`: the parser may report a cut-off part on it, and the refusal then ends it with its own error.
		stream.on('error', reject);
		stream.once('close', () => {
			if (!ended) reject(new Error('form part cut off'));
		});
	});
}
