import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawApplication } from '../../src/lib/server/applications/own';
import { applicationFiles } from '../../src/lib/server/db/schema';
import { s3Store, diskStore, type BlobStore } from '../../src/lib/server/files/store';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { addMember, applicationById, seedApplication } from '../helpers/members';
import { OUTBOX_OFF } from '../helpers/outbox';

// A withdrawal takes its files with it (issue 58; docs/data.md "application_files": a withdrawn application's
// files go with it): the rows in the withdrawal's transaction, then the bytes no other row references, in FILES_DIR
// and in a real S3-compatible server (s3rver on loopback). A store that fails to remove bytes never fails
// the withdrawal; a withdrawal that is refused removes nothing.
const s3Dir = mkdtempSync(path.join(tmpdir(), 'portal-s3-withdraw-'));
const folder = mkdtempSync(path.join(tmpdir(), 'portal-files-withdraw-'));
let server: S3rver;
let s3: BlobStore;

beforeAll(async () => {
	server = new S3rver({
		address: '127.0.0.1',
		port: 0,
		silent: true,
		directory: s3Dir,
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
	rmSync(s3Dir, { recursive: true, force: true });
	rmSync(folder, { recursive: true, force: true });
});

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const pdf = () => new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2048)]));
const held = async (store: BlobStore, hash: string) => {
	const body = await store.read(hash);
	if (!body) return false;
	await body.cancel();
	return true;
};

/** An application with one file of its own bytes and one whose bytes another application also holds. */
async function applicationWithFiles(db: TestDatabase['db'], store: BlobStore) {
	const member = await addMember(db);
	const app = await seedApplication(db, member.address);
	const other = await seedApplication(db, (await addMember(db)).address);
	const own = pdf();
	const shared = pdf();
	for (const bytes of [own, shared]) await store.put(sha(bytes), bytes);
	const row = (applicationId: string, bytes: Uint8Array) => ({
		applicationId,
		questionKey: 'portfolio',
		name: 'cv.pdf',
		contentType: 'application/pdf',
		bytes: bytes.length,
		sha256: sha(bytes)
	});
	await db.insert(applicationFiles).values([row(app.id, own), row(app.id, shared), row(other.id, shared)]);
	return { member, app, other, own: sha(own), shared: sha(shared) };
}

const rowsOf = (db: TestDatabase['db'], applicationId: string) =>
	db.select().from(applicationFiles).where(eq(applicationFiles.applicationId, applicationId));

describe.each(engines)('withdrawing takes the files with it, on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	describe.each([
		['S3 (s3rver)', () => s3],
		['FILES_DIR', () => diskStore(folder)]
	])('%s', (_, store) => {
		it('the rows go, the bytes only this application held go, shared bytes stay', async () => {
			const { member, app, other, own, shared } = await applicationWithFiles(t.db, store());
			const outcome = await withdrawApplication(t.db, OUTBOX_OFF, store(), member, null, { reason: '' });
			expect(outcome.ok).toBe(true);
			expect((await applicationById(t.db, app.id))?.review).toBe('withdrawn');
			expect(await rowsOf(t.db, app.id)).toEqual([]);
			expect(await rowsOf(t.db, other.id)).toHaveLength(1);
			expect(await held(store(), own)).toBe(false);
			expect(await held(store(), shared)).toBe(true);
		});

		it('a refused withdrawal (already decided) keeps the rows and the bytes', async () => {
			const { member, app, own } = await applicationWithFiles(t.db, store());
			await t.db.execute(`update applications set review = 'approved' where id = '${app.id}'`);
			const outcome = await withdrawApplication(t.db, OUTBOX_OFF, store(), member, null, { reason: '' });
			expect(outcome).toMatchObject({ ok: false, status: 409 });
			expect(await rowsOf(t.db, app.id)).toHaveLength(2);
			expect(await held(store(), own)).toBe(true);
		});
	});

	it('a store that fails to remove the bytes: the withdrawal still succeeds, the rows are gone', async () => {
		const real = diskStore(folder);
		const seen: (string | undefined)[] = [];
		const { member, app, own } = await applicationWithFiles(t.db, real);
		const failing: BlobStore = {
			...real,
			remove: async () => {
				// Only once the withdrawal has committed: another connection already reads it withdrawn.
				seen.push((await applicationById(t.db, app.id))?.review);
				throw new Error('the bucket is unreachable');
			}
		};
		const outcome = await withdrawApplication(t.db, OUTBOX_OFF, failing, member, null, { reason: 'Moving on' });
		expect(outcome.ok).toBe(true);
		expect(seen).toEqual(['withdrawn']);
		expect((await applicationById(t.db, app.id))?.review).toBe('withdrawn');
		expect(await rowsOf(t.db, app.id)).toEqual([]);
		// Left behind, logged: only space, never reachable (no row names it).
		expect(await held(real, own)).toBe(true);
	});
});
