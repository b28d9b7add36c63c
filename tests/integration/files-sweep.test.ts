import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationFiles } from '../../src/lib/server/db/schema';
import { diskStore, s3Store, type BlobStore, type StoredEntry } from '../../src/lib/server/files/store';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/lib/server/db/client';
import { SWEEP_GRACE_MS, sweepIfDue, sweepOrphans } from '../../src/lib/server/files/sweep';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { addMember, seedApplication } from '../helpers/members';

// Orphans (issue 58): bytes stored whose row never landed (a crash between the bytes and the transaction)
// and temporaries an upload cut off left behind are removed by the sweep once older than its grace, in
// FILES_DIR and in a real S3-compatible server (s3rver on loopback); bytes a row references, and anything
// newer than the grace (an upload under way, bytes kept again since), stay.
const s3Dir = mkdtempSync(path.join(tmpdir(), 'portal-s3-sweep-'));
const folder = mkdtempSync(path.join(tmpdir(), 'portal-files-sweep-'));
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
const temporaries = async (store: BlobStore) => {
	const found: StoredEntry[] = [];
	for await (const entry of store.entries()) if (entry.kind === 'temporary') found.push(entry);
	return found;
};
/** Two hours on: everything written before this test is past the grace. */
const later = () => new Date(Date.now() + 2 * SWEEP_GRACE_MS);

describe.each(engines)('the orphan sweep, on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	describe.each([
		['S3 (s3rver)', () => s3],
		['FILES_DIR', () => diskStore(folder)]
	])('%s', (_, store) => {
		it('removes bytes no row references and temporaries once past the grace; referenced bytes stay', async () => {
			const app = await seedApplication(t.db, (await addMember(t.db)).address);
			const [referenced, orphan] = [pdf(), pdf()];
			for (const bytes of [referenced, orphan]) await store().put(sha(bytes), bytes);
			await t.db.insert(applicationFiles).values({
				applicationId: app.id,
				questionKey: 'portfolio',
				name: 'cv.pdf',
				contentType: 'application/pdf',
				bytes: referenced.length,
				sha256: sha(referenced)
			});
			// Bytes an upload staged and a crash left: never kept under a hash, never dropped.
			await store().stage([Buffer.from(pdf())]);
			expect(await temporaries(store())).not.toEqual([]);

			// Within the grace nothing goes: any of these could be an upload under way.
			expect(await sweepOrphans(t.db, store())).toEqual({ files: 0, temporaries: 0 });
			expect(await held(store(), sha(orphan))).toBe(true);
			expect(await temporaries(store())).not.toEqual([]);

			const swept = await sweepOrphans(t.db, store(), { now: later() });
			expect(swept.files).toBeGreaterThanOrEqual(1);
			expect(swept.temporaries).toBeGreaterThanOrEqual(1);
			expect(await held(store(), sha(orphan))).toBe(false);
			expect(await held(store(), sha(referenced))).toBe(true);
			expect(await temporaries(store())).toEqual([]);
		});

		it('an upload under way is never swept: its temporary, then its bytes kept until the row lands', async () => {
			let release: () => void = () => {};
			const waiting = new Promise<void>((resolve) => (release = resolve));
			const bytes = pdf();
			const chunks = async function* () {
				yield bytes.subarray(0, 1000);
				await waiting;
				yield bytes.subarray(1000);
			};
			const staging = store().stage(chunks());
			// The sweep runs while the upload is still arriving: its temporary is new, so it stays.
			await new Promise((resolve) => setTimeout(resolve, 200));
			expect(await sweepOrphans(t.db, store())).toEqual({ files: 0, temporaries: 0 });
			release();
			const staged = await staging;
			await staged.keep(sha(bytes));
			// Kept, its row not yet written (the transaction under way): still new, so it stays.
			expect(await sweepOrphans(t.db, store())).toEqual({ files: 0, temporaries: 0 });
			expect(await held(store(), sha(bytes))).toBe(true);
		});

		it('the cron run’s sweep (Vercel): one an hour however many runs overlap, and it stops when its budget is spent', async () => {
			const orphan = pdf();
			await store().put(sha(orphan), orphan);
			// A deadline already past: nothing looked at, nothing removed, and it says it stopped short.
			expect(await sweepOrphans(t.db, store(), { now: later(), deadline: Date.now() })).toEqual({
				files: 0,
				temporaries: 0,
				cutShort: true
			});
			expect(await held(store(), sha(orphan))).toBe(true);

			await t.db.execute(sql`delete from rate_limit_counters where action = 'files-sweep'`);
			const handle = { kind: engine, db: t.db, ready: () => Promise.resolve() } as unknown as DatabaseHandle;
			// A grace in the future: everything stored counts as old.
			const run = () => sweepIfDue(handle, store(), { graceMs: -60_000 });
			const runs = await Promise.all([run(), run(), run()]);
			expect(runs.filter((r) => r === null)).toHaveLength(2);
			expect(runs.find((r) => r !== null)?.files).toBeGreaterThanOrEqual(1);
			expect(await held(store(), sha(orphan))).toBe(false);
			// Within the hour, the next run sweeps nothing, an orphan there or not.
			const again = pdf();
			await store().put(sha(again), again);
			expect(await run()).toBeNull();
			expect(await held(store(), sha(again))).toBe(true);
			await store().remove(sha(again));
		});
	});

	it('FILES_DIR: old bytes sent again become new, so the row about to reference them finds them', async () => {
		const disk = diskStore(folder);
		const bytes = pdf();
		const hash = sha(bytes);
		await disk.put(hash, bytes);
		const file = path.join(folder, hash.slice(0, 2), hash);
		const old = new Date(Date.now() - 2 * SWEEP_GRACE_MS);
		utimesSync(file, old, old);
		// The same file uploaded again, streamed: kept under the same hash.
		const staged = await disk.stage([Buffer.from(bytes)]);
		await staged.keep(hash);
		expect(await sweepOrphans(t.db, disk)).toEqual({ files: 0, temporaries: 0 });
		expect(await held(disk, hash)).toBe(true);
		// Put again (a caller with the bytes in memory): the same.
		utimesSync(file, old, old);
		await disk.put(hash, bytes);
		expect(await sweepOrphans(t.db, disk)).toEqual({ files: 0, temporaries: 0 });
		expect(await held(disk, hash)).toBe(true);
	});
});
