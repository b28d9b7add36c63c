import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchDownload, batchPreviews } from '../../src/lib/server/chain/batch-download';
import { loadConfig, type Config } from '../../src/lib/server/platform/config';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';

const env = {
	SESSION_PASSWORD: randomBytes(32).toString('base64'),
	SIWE_ALLOWED_DOMAINS: 'portal.example',
	TREASURY_ADDRESS: `0x${'1'.repeat(40)}`,
	ALLOWLIST_CONTRACT: `0x${'2'.repeat(40)}`,
	ALLOWLIST_FUNCTION: 'addToAllowlist(address[])'
};

// A batch holds at most 100 (docs/fulfilment.md); with more waiting it says so, never silently.
describe.each(engines)('a batch of every waiting application on %s', (engine) => {
	let t: TestDatabase;
	let config: Config;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		config = loadConfig(env);
		await t.db.execute(
			sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, 105) g`
		);
		await t.db.execute(sql`insert into applications (applicant_address, display_name, motivation, review, created_at)
			select '0x' || lpad(to_hex(g), 40, '0'), 'P' || g, 'M', 'approved', now() - make_interval(mins => 200 - g)
			from generate_series(1, 105) g`);
	});
	afterAll(() => t?.drop());

	it('holds the oldest 100 and says how many wait in all, in the file and on the preview', async () => {
		const outcome = await batchDownload(t.db, config, 'allowlist', new URLSearchParams());
		if (!outcome.ok) throw new Error(outcome.message);
		expect(outcome.filename).toMatch(/-100\.json$/);
		expect(outcome.file.meta.description).toContain(
			'The oldest 100 of 105 waiting: once this batch is recorded, the next download holds the next 5.'
		);
		const [allowlist] = await batchPreviews(t.db, config, new URLSearchParams());
		expect(allowlist?.recipients).toHaveLength(100);
		expect(allowlist?.more).toBe(
			'The oldest 100 of 105 waiting: once this batch is recorded, the next download holds the next 5.'
		);
		await t.db.execute(
			sql`update applications set allowlist = 'added' where display_name in ('P1', 'P2', 'P3', 'P4', 'P5')`
		);
		const all = await batchDownload(t.db, config, 'allowlist', new URLSearchParams());
		if (!all.ok) throw new Error(all.message);
		expect(all.file.meta.description).not.toContain('waiting');
	});
});
