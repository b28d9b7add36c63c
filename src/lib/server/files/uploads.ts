import { createHash, randomUUID } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import {
	answerField,
	fileTypeName,
	mebibytes,
	questionInLocale,
	type FileType,
	type Question
} from '$lib/forms/questions';
import { m } from '$lib/paraglide/messages';
import { getLocale } from '$lib/paraglide/runtime';
import type { Database } from '../db/client';
import { applicationFiles } from '../db/schema';
import type { FailureOf } from '../platform/outcome';
import { logger } from '../platform/observability';
import { detectFileType } from './detect';
import { ReceivedFile } from './receive';
import type { BlobStore, StagedBlob } from './store';

/**
 * One uploaded file, checked, with the id its row will have: its bytes in memory (a File: readForm, or a
 * caller's), or already in the store under a temporary name (streamed: receive.ts), to keep by its hash.
 */
export interface Upload {
	id: string;
	questionKey: string;
	name: string;
	contentType: FileType;
	size: number;
	sha256: string;
	body: { bytes: Uint8Array } | { staged: StagedBlob };
}

export type Inspected =
	{ ok: true; uploads: Upload[]; sent: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

// Controls, and the marks that reorder or hide text (a name `cod.exe\u202Efdp.pdf` reads as another).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"\\/]/g;

/** A file's original name made safe to show and to send back: no folders, controls or quotes; at most 200 characters. */
export function safeName(name: string): string {
	const base = name.split(/[/\\]/).pop() ?? '';
	const clean = [...base.normalize('NFC').replace(UNSAFE, '').trim()].slice(0, 200).join('');
	return clean.replace(/^\.+/, '') || 'file';
}

/** The browser's "no file chosen": a part with an empty name and no bytes. */
const isEmptyPart = (f: File) => f.name === '' && f.size === 0;

/**
 * The uploads of a form's `file` questions, checked against each question (how many, how big, the
 * type told from the bytes): the uploads to store and the sent answers with each question's files
 * replaced by the ids they will have; or a message per question. Fields of other questions pass as sent.
 */
export async function inspectUploads(
	questions: readonly Question[],
	sent: Readonly<Record<string, unknown>>
): Promise<Inspected> {
	const out: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, sent);
	const uploads: Upload[] = [];
	const errors: Record<string, string> = {};
	for (const question of questions) {
		if (question.type !== 'file') continue;
		const q = questionInLocale(question, getLocale());
		const field = answerField(q.key);
		const raw = Object.hasOwn(sent, field) ? sent[field] : undefined;
		const values = raw === undefined ? [] : Array.isArray(raw) ? (raw as unknown[]) : [raw];
		// Text in a file's place (a client that posts ids or names): never taken as a file's id.
		if (values.some((v) => typeof v === 'string' && v !== '')) {
			errors[field] = m.form_file_unreadable({ label: q.label });
			continue;
		}
		const files = values.filter(
			(v): v is File | ReceivedFile =>
				(v instanceof File && !isEmptyPart(v)) || (v instanceof ReceivedFile && v.outcome.kind !== 'empty')
		);
		const maxFiles = q.maxFiles ?? 1;
		const maxBytes = q.maxBytes ?? 0;
		const accept = q.accept ?? [];
		if (files.length > maxFiles) {
			errors[field] = m.form_file_too_many({ label: q.label, max: maxFiles });
			continue;
		}
		const mine: Upload[] = [];
		const wrongType = (name: string) =>
			m.form_file_wrong_type({ label: q.label, name, types: accept.map(fileTypeName).join(', ') });
		for (const file of files) {
			const name = safeName(file.name);
			if (file instanceof ReceivedFile) {
				// Checked as it streamed in (receive.ts), against this form's questions; checked again here in
				// case the form changed in between.
				const got = file.outcome;
				if (got.kind === 'refused' && got.why === 'not_kept') {
					errors[field] = m.form_file_unreadable({ label: q.label });
					break;
				}
				if ((got.kind === 'refused' && got.why === 'too_big') || (got.kind === 'staged' && got.bytes > maxBytes)) {
					errors[field] = m.form_file_too_big({ label: q.label, name, max: mebibytes(maxBytes) });
					break;
				}
				if (got.kind !== 'staged' || !accept.includes(got.type)) {
					errors[field] = wrongType(name);
					break;
				}
				const { type, bytes, sha256, staged } = got;
				mine.push({
					id: randomUUID(),
					questionKey: q.key,
					name,
					contentType: type,
					size: bytes,
					sha256,
					body: { staged }
				});
				continue;
			}
			if (file.size > maxBytes) {
				errors[field] = m.form_file_too_big({ label: q.label, name, max: mebibytes(maxBytes) });
				break;
			}
			const bytes = new Uint8Array(await file.arrayBuffer());
			const type = detectFileType(bytes);
			if (!type || !accept.includes(type)) {
				errors[field] = wrongType(name);
				break;
			}
			const sha256 = createHash('sha256').update(bytes).digest('hex');
			mine.push({
				id: randomUUID(),
				questionKey: q.key,
				name,
				contentType: type,
				size: bytes.length,
				sha256,
				body: { bytes }
			});
		}
		if (errors[field]) continue;
		uploads.push(...mine);
		out[field] = mine.map((u) => u.id);
	}
	return Object.keys(errors).length ? { ok: false, errors } : { ok: true, uploads, sent: out };
}

/** The 503 of a store that failed (disk full, bucket down) while it took an upload's bytes. */
export const filesUnavailable = (): FailureOf<503> => ({
	ok: false,
	status: 503,
	code: 'files_unavailable',
	message: m.files_unavailable()
});

/**
 * The uploads' bytes into the store, before any row is written (file first, then the rows in the
 * submission's transaction). A store that fails (disk full, bucket down): 503, and what this call
 * put that no row references is removed again.
 */
export async function keepUploads(
	db: Database,
	store: BlobStore,
	uploads: readonly Upload[]
): Promise<{ ok: true } | FailureOf<503>> {
	const put: string[] = [];
	try {
		for (const u of uploads) {
			if ('staged' in u.body) await u.body.staged.keep(u.sha256);
			else if (!put.includes(u.sha256)) await store.put(u.sha256, u.body.bytes);
			put.push(u.sha256);
		}
		return { ok: true };
	} catch {
		await removeUnreferenced(db, store, [...put, ...uploads.map((u) => u.sha256)]);
		return filesUnavailable();
	}
}

/**
 * Writes a submission that carries files: their bytes first (`keepUploads`), then `write`, the
 * transaction that records their rows. When the write is refused or fails, the bytes no row references
 * are removed again: nothing is left half written.
 */
export async function withKeptUploads<T extends { ok: boolean }>(
	db: Database,
	store: BlobStore | null | undefined,
	uploads: readonly Upload[],
	write: () => Promise<T>
): Promise<T | FailureOf<503>> {
	if (!uploads.length) return write();
	if (!store) throw new Error('A form with files needs a file store');
	const kept = await keepUploads(db, store, uploads);
	if (!kept.ok) return kept;
	const unreferenced = () =>
		removeUnreferenced(
			db,
			store,
			uploads.map((u) => u.sha256)
		);
	let outcome: T;
	try {
		outcome = await write();
	} catch (fault) {
		await unreferenced();
		throw fault;
	}
	if (!outcome.ok) await unreferenced();
	return outcome;
}

/** The uploads' rows, in the submission's transaction. */
export async function recordUploads(
	tx: Pick<Database, 'insert'>,
	applicationId: string,
	uploads: readonly Upload[]
): Promise<void> {
	if (!uploads.length) return;
	await tx.insert(applicationFiles).values(
		uploads.map((u) => ({
			id: u.id,
			applicationId,
			questionKey: u.questionKey,
			name: u.name,
			contentType: u.contentType,
			bytes: u.size,
			sha256: u.sha256
		}))
	);
}

/**
 * The stored bytes of `hashes` that no row references any more (a submission that failed after its
 * files were put; files whose rows were deleted), removed from the store. Never throws: a bytes object
 * left behind is only space, never a file anyone can reach.
 */
export async function removeUnreferenced(db: Database, store: BlobStore, hashes: readonly string[]): Promise<void> {
	const unique = [...new Set(hashes)];
	if (!unique.length) return;
	try {
		const used = new Set(
			(
				await db
					.select({ sha256: applicationFiles.sha256 })
					.from(applicationFiles)
					.where(inArray(applicationFiles.sha256, unique))
			).map((r) => r.sha256)
		);
		for (const sha256 of unique)
			if (!used.has(sha256))
				await store.remove(sha256).catch((err: unknown) => {
					logger.warn(`files: could not remove the unreferenced bytes ${sha256}: ${messageOf(err)}`);
				});
	} catch (err) {
		// The database is down: the bytes stay until the next removal of that hash.
		logger.warn(`files: could not check which bytes are unreferenced: ${messageOf(err)}`);
	}
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The sent answers with each `file` question that was given no new file holding the ids of the files it
 * had (the application's own, so never another's); those given files keep the new ids inspectUploads set.
 * An edit and a resubmission after needs_info both read a file question left empty as "keep what was sent".
 */
export function keptFiles(
	questions: readonly { key: string; type: string }[],
	inspected: { uploads: readonly { questionKey: string }[]; sent: Readonly<Record<string, unknown>> },
	before: Readonly<Record<string, unknown>>
): Record<string, unknown> {
	const out: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, inspected.sent);
	for (const q of questions) {
		if (q.type !== 'file' || inspected.uploads.some((u) => u.questionKey === q.key)) continue;
		const had = Object.hasOwn(before, q.key) ? before[q.key] : undefined;
		if (Array.isArray(had) && had.every((id) => typeof id === 'string')) out[answerField(q.key)] = had;
	}
	return out;
}
