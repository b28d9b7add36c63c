import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../db/client';
import { applicationFiles, applications } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { inScope } from '../team/roles';
import { removeUnreferenced } from './uploads';
import type { BlobStore } from './store';

export type StoredFile = Pick<typeof applicationFiles.$inferSelect, 'id' | 'name' | 'contentType' | 'bytes'>;

/**
 * The file `id` if `viewer` may see it: its applicant, an admin, or a reviewer, those of some programmes
 * only on their programmes' applications (issue 59). Anyone else, and an unknown id: null (the unknown-path 404).
 */
export async function fileForViewer(
	db: Database,
	id: string,
	viewer: SignedInMember | null
): Promise<(StoredFile & { sha256: string }) | null> {
	if (!viewer) return null;
	const [row] = await db
		.select({
			id: applicationFiles.id,
			name: applicationFiles.name,
			contentType: applicationFiles.contentType,
			bytes: applicationFiles.bytes,
			sha256: applicationFiles.sha256,
			applicant: applications.applicantAddress,
			programId: applications.programId
		})
		.from(applicationFiles)
		.innerJoin(applications, eq(applications.id, applicationFiles.applicationId))
		.where(eq(applicationFiles.id, id))
		.limit(1);
	if (!row) return null;
	const reviews = (viewer.isAdmin || viewer.isReviewer) && inScope(viewer, row.programId);
	if (row.applicant !== viewer.address && !reviews) return null;
	const { applicant: _applicant, programId: _programId, ...file } = row;
	return file;
}

/** The files of some applications, by file id (what `answers.<key>` holds), for the pages that show answers. */
export async function filesOf(db: Database, applicationIds: readonly string[]): Promise<Record<string, StoredFile>> {
	if (!applicationIds.length) return {};
	const rows = await db
		.select({
			id: applicationFiles.id,
			name: applicationFiles.name,
			contentType: applicationFiles.contentType,
			bytes: applicationFiles.bytes
		})
		.from(applicationFiles)
		.where(inArray(applicationFiles.applicationId, [...applicationIds]));
	return Object.fromEntries(rows.map((r) => [r.id, r]));
}

/**
 * An application's file rows deleted, in the caller's transaction (its withdrawal or deletion): the
 * hashes they held, for removeUnreferenced once that transaction has committed (never before: a rolled
 * back withdrawal keeps its files). Deleting the application itself removes the rows by cascade.
 */
export async function dropApplicationFiles(tx: Pick<Database, 'delete'>, applicationId: string): Promise<string[]> {
	const gone = await tx
		.delete(applicationFiles)
		.where(eq(applicationFiles.applicationId, applicationId))
		.returning({ sha256: applicationFiles.sha256 });
	return gone.map((r) => r.sha256);
}

/** An application's files gone outside any transaction: the rows, then the bytes no other row references. */
export async function deleteApplicationFiles(db: Database, store: BlobStore, applicationId: string): Promise<void> {
	await removeUnreferenced(db, store, await dropApplicationFiles(db, applicationId));
}
