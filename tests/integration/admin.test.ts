import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { and, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTableQuery, reviewTable, tableFilter } from '../../src/lib/server/applications/review-table';
import { commonWordsFor } from '../../src/lib/server/applications/search-pieces';
import { rowsOf } from '../../src/lib/server/db/rows';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { allowlistCsv, applicationsCsv, pendingAllowlist } from '../../src/lib/server/applications/exports';
import type { Database } from '../../src/lib/server/db/client';
import { applyMigrations } from '../../src/lib/server/db/migrate';
import * as schema from '../../src/lib/server/db/schema';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember, randomTxHash, seedApplication } from '../helpers/members';

const query = (search: string) => parseTableQuery(new URLSearchParams(search));
const csvText = async (stream: Promise<ReadableStream<Uint8Array>>) => new Response(await stream).text();

describe.each(engines)('the review table on %s', (engine) => {
	let t: TestDatabase;
	const ids: string[] = [];
	const addresses: string[] = [];
	const admin = adminMember();
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		// 130 applications, one a minute apart, oldest first; every third approved, every fifth rejected.
		for (let i = 0; i < 130; i++) {
			const member = await addMember(t.db);
			const review = i % 3 === 0 ? 'approved' : i % 5 === 0 ? 'rejected' : 'pending';
			const app = await seedApplication(t.db, member.address, { review });
			await t.db.execute(
				sql`update applications set created_at = now() - make_interval(mins => ${130 - i}), display_name = ${`Person ${i}`}, contact = ${`@handle_${i}`} where id = ${app.id}`
			);
			ids.push(app.id);
			addresses.push(member.address);
		}
		await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: ids[3],
			field: 'allowlist',
			to: 'added',
			txHash: randomTxHash()
		});
		await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: ids[6],
			field: 'allowlist',
			to: 'failed',
			reason: 'gas'
		});
		await t.db.insert(schema.applicationNotes).values([
			{ applicationId: ids[0]!, authorAddress: admin.address, body: 'one' },
			{ applicationId: ids[0]!, authorAddress: admin.address, body: 'two' }
		]);
	});
	afterAll(() => t?.drop());

	const idsOf = (table: { rows: { id: string }[] }) => table.rows.map((r) => r.id);

	it('lists the longest waiting first, 50 rows a page, and walks every page forwards and back by cursor', async () => {
		const first = await reviewTable(t.db, query(''));
		expect(idsOf(first)).toEqual(ids.slice(0, 50));
		expect(first.previous).toBeNull();
		expect(first.rows[0]).toMatchObject({ displayName: 'Person 0', notes: 2, review: 'approved' });
		const second = await reviewTable(t.db, query(`after=${first.next}`));
		expect(idsOf(second)).toEqual(ids.slice(50, 100));
		const third = await reviewTable(t.db, query(`after=${second.next}`));
		expect(idsOf(third)).toEqual(ids.slice(100));
		expect(third.next).toBeNull();
		const back = await reviewTable(t.db, query(`before=${third.previous}`));
		expect(idsOf(back)).toEqual(ids.slice(50, 100));
		expect(idsOf(await reviewTable(t.db, query('before=end')))).toEqual(ids.slice(80));
		const newest = await reviewTable(t.db, query('sort=newest'));
		expect(idsOf(newest)).toEqual(ids.slice(80).reverse());
		expect(idsOf(await reviewTable(t.db, query(`sort=newest&after=${newest.next}`)))).toEqual(
			ids.slice(30, 80).reverse()
		);
	});

	it('filters by each state and counts per review state under the other filters', async () => {
		const approved = await reviewTable(t.db, query('review=approved'));
		expect(approved.rows.every((r) => r.review === 'approved')).toBe(true);
		expect(approved.counts).toEqual({ all: 130, approved: 44, rejected: 17, pending: 69, needs_info: 0, withdrawn: 0 });
		const failed = await reviewTable(t.db, query('allowlist=failed'));
		expect(idsOf(failed)).toEqual([ids[6]]);
		expect(failed.counts).toMatchObject({ all: 1, approved: 1, pending: 0 });
	});

	it('searches address, display name and contact by any fragment, in any case, wildcards taken literally', async () => {
		const target = addresses[10]!;
		expect(idsOf(await reviewTable(t.db, query(`q=${target.slice(14, 24).toUpperCase()}`)))).toEqual([ids[10]]);
		expect(idsOf(await reviewTable(t.db, query('q=person 12')))).toEqual([ids[12], ...ids.slice(120, 130)]);
		expect(idsOf(await reviewTable(t.db, query('q=HANDLE_77')))).toEqual([ids[77]]);
		expect((await reviewTable(t.db, query('q=%25%25%25'))).rows).toEqual([]);
		expect((await reviewTable(t.db, query('q=le_'))).counts.all).toBe(130);
		expect((await reviewTable(t.db, query('q=le%5C_'))).rows).toEqual([]);
	});

	it('counts a search per review state in one pass', async () => {
		// "person 1" matches Person 1, 10–19 and 100–129: 42 applications.
		const matching = Array.from({ length: 130 }, (_, i) => i).filter((i) => /^1(\d\d?)?$/.test(String(i)));
		const review = (i: number) => (i % 3 === 0 ? 'approved' : i % 5 === 0 ? 'rejected' : 'pending');
		const expected = { all: matching.length, pending: 0, needs_info: 0, approved: 0, rejected: 0, withdrawn: 0 };
		for (const i of matching) expected[review(i)]++;
		expect((await reviewTable(t.db, query('q=person 1'))).counts).toEqual(expected);
		expect((await reviewTable(t.db, query('q=person 1&allowlist=failed'))).counts).toEqual({
			all: 0,
			pending: 0,
			needs_info: 0,
			approved: 0,
			rejected: 0,
			withdrawn: 0
		});
	});

	it('the allowlist CSV lists approved applicants whose allowlist is pending, with formulas defused', async () => {
		const rows = await pendingAllowlist(t.db);
		expect(rows.map((r) => r.id)).toEqual(ids.filter((_, i) => i % 3 === 0 && i !== 3 && i !== 6));
		const r = rows[0]!;
		const csv = allowlistCsv([{ ...r, displayName: '=HYPERLINK("x")', contact: 'a,"b"\nc' }]);
		expect(csv).toBe(
			'"address","display_name","contact","application_id","applied_at"\r\n' +
				`"${r.applicantAddress}","'=HYPERLINK(""x"")","a,""b""\nc","${r.id}","${r.createdAt.toISOString()}"\r\n`
		);
	});
});

describe('the review table costs at most two statements whatever the page holds', () => {
	it('for a full page of 50 with notes, a search, one without matches, and an empty page past the end', async () => {
		const client = new PGlite('memory://', { extensions: { pg_trgm } });
		let statements = 0;
		const db = drizzle(client, { schema, logger: { logQuery: () => void statements++ } }) as unknown as Database;
		try {
			await applyMigrations(db, 'pglite', 'drizzle');
			const addresses: string[] = [];
			for (let i = 0; i < 51; i++) {
				const app = await seedApplication(db, (await addMember(db)).address);
				addresses.push(app.applicantAddress);
				await db.insert(schema.applicationNotes).values({ applicationId: app.id, authorAddress: '0x1', body: 'n' });
			}
			// A search counts its matches first and reads their rows by id; none, and the count says so alone.
			const one = (addresses[7] ?? '').slice(2, 14).toUpperCase();
			for (const [search, rows, count] of [
				['', 50, 2],
				[`q=${one}`, 1, 2],
				['q=nobody', 0, 1],
				['review=rejected&before=end', 0, 2]
			] as const) {
				statements = 0;
				const table = await reviewTable(db, query(search));
				expect(table.rows.length, search).toBe(rows);
				if (search.startsWith('q='))
					expect(table.rows.map((r) => r.applicantAddress)).toEqual(addresses.slice(7, 7 + rows));
				expect(table.rows.every((r) => r.notes === 1)).toBe(true);
				expect(statements, search).toBe(count);
			}
		} finally {
			await client.close();
		}
	}, 60_000);
});

describe.each(engines)('the applications CSV on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('lists every application matching the filters, every cell quoted, formulas defused, the last tx hash', async () => {
		const admin = adminMember();
		const evil = await seedApplication(t.db, (await addMember(t.db)).address, { review: 'approved' });
		await t.db.execute(
			sql`update applications set display_name = '=HYPERLINK("http://x")', contact = '+1 "quoted", comma' where id = ${evil.id}`
		);
		const other = await seedApplication(t.db, (await addMember(t.db)).address);
		const hash = randomTxHash();
		await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: evil.id,
			field: 'allowlist',
			to: 'failed',
			reason: 'x'
		});
		await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
			applicationId: evil.id,
			field: 'allowlist',
			to: 'added',
			txHash: hash
		});

		await t.db
			.insert(schema.applicationNotes)
			.values({ applicationId: evil.id, authorAddress: admin.address, body: 'n' });
		await t.db
			.insert(schema.applicationVotes)
			.values({ applicationId: evil.id, reviewerAddress: admin.address, vote: 'approve', scores: { fit: 4 } });

		const all = (await csvText(applicationsCsv(t.handle, query('')))).split('\r\n');
		expect(all[0]).toBe(
			'"id","applicant_address","display_name","contact","review","allowlist","distribution","created_at","updated_at","last_tx_hash","motivation","votes_approve","votes_reject","votes_abstain","mean_score","notes"'
		);
		expect(all).toHaveLength(4);
		const line = all.find((l) => l.startsWith(`"${evil.id}"`))!;
		expect(line).toContain(`"'=HYPERLINK(""http://x"")","'+1 ""quoted"", comma","approved","added","pending"`);
		// The last tx hash, then the motivation, the votes, the mean score and the notes.
		expect(line.endsWith(`"${hash}","I build things.","1","0","0","4.00","1"`)).toBe(true);
		expect(all.find((l) => l.startsWith(`"${other.id}"`))!.endsWith('"","I build things.","0","0","0","","0"')).toBe(
			true
		);
		const approved = (await csvText(applicationsCsv(t.handle, query('review=approved')))).trim().split('\r\n');
		expect(approved).toHaveLength(2);
		expect(approved[1]!.startsWith(`"${evil.id}"`)).toBe(true);
	});
});

describe.each(engines)('capped counts of a broad search on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		// 6,000 applications named alike (more than one pass counts): every fourth approved.
		await t.db.execute(
			sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, 6000) g`
		);
		await t.db.execute(sql`insert into applications (applicant_address, display_name, motivation, review)
			select '0x' || lpad(to_hex(g), 40, '0'), 'Gardener ' || g, 'Seeds',
				(case when g % 4 = 0 then 'approved' else 'pending' end)::review_state
			from generate_series(1, 6000) g`);
	});
	afterAll(() => t?.drop());

	it('counts at most 1,001 per state whether the matches fit one pass or not', async () => {
		const capped = { all: 1001, pending: 1001, approved: 1001, needs_info: 0, rejected: 0, withdrawn: 0 };
		// 6,000 matches: more than one pass takes, so each state is counted on its own.
		expect((await reviewTable(t.db, query('q=gardener'))).counts).toEqual(capped);
		// 1,111 matches (Gardener 1, 10–19, 100–199, 1000–1999): one pass, then capped.
		const some = await reviewTable(t.db, query('q=gardener 1'));
		expect(some.counts).toEqual({ all: 1001, pending: 834, approved: 277, needs_info: 0, rejected: 0, withdrawn: 0 });
	});
});

// #46: when every name contains "Applicant", a search for "icant 777." looked up all four of that
// word's trigrams, each listing every application; the table now looks up " 777." in the names' index
// and checks the whole search on what that finds. What matches must not change.
describe.each(engines)('a search with a word most names contain on %s', (engine) => {
	let t: TestDatabase;
	let all: { id: string; applicant_address: string; display_name: string; contact: string }[];
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		const address = sql.raw(`'0x' || left(encode(sha256(g::text::bytea), 'hex'), 40)`);
		await t.db.execute(sql`insert into members (address) select ${address} from generate_series(1, 3000) g`);
		await t.db.execute(sql`insert into applications (applicant_address, display_name, motivation, contact)
			select ${address}, 'Applicant ' || g || '.', 'Why', '@member' || g from generate_series(1, 3000) g`);
		await t.db.execute(sql`analyze applications`);
		all = rowsOf(await t.db.execute(sql`select id, applicant_address, display_name, contact from applications`));
	}, 120_000);
	afterAll(() => t?.drop());

	it('finds what it found before, fragment and case alike, wildcards taken literally', async () => {
		for (const q of [
			'icant 777.',
			'ICANT 77',
			'applicant 1',
			'plic 29',
			'member 3',
			'nt 2999.',
			'applicant',
			'Applicant 12. x',
			'777. icant',
			'icant 1_',
			'icant 7%',
			'cant 5 .',
			'@member 12'
		]) {
			const lower = q.toLowerCase();
			const expected = all.filter((a) =>
				[a.applicant_address, a.display_name, a.contact].some((c) => c.toLowerCase().includes(lower))
			);
			const table = await reviewTable(t.db, query(`q=${encodeURIComponent(q)}`));
			expect(table.counts.all, q).toBe(Math.min(expected.length, 1001));
			if (expected.length <= 50)
				expect(table.rows.map((r) => r.id).sort(), q).toEqual(expected.map((a) => a.id).sort());
		}
	});

	it("looks up only the search's uncommon part in the names' index, and all of it in the others", async () => {
		const q = 'icant 777.';
		const common = await commonWordsFor(t.db, q);
		expect(common?.('display_name', 'icant')).toBe(true);
		expect(common?.('display_name', '777')).toBe(false);
		expect(common?.('contact', 'icant')).toBe(false);
		const plan = await t.db.transaction(async (tx) => {
			await tx.execute(sql`set local enable_seqscan = off`);
			const filter = and(...tableFilter(query(`q=${encodeURIComponent(q)}`), true, undefined, common));
			return rowsOf<{ 'QUERY PLAN': string }>(
				await tx.execute(sql`explain select id from applications where ${filter}`)
			)
				.map((r) => r['QUERY PLAN'])
				.join('\n');
		});
		const conditions = (index: string) =>
			plan.split(/\n(?=\s*->)/).find((node) => node.includes(`Bitmap Index Scan on ${index}`)) ?? '';
		expect(conditions('applications_display_name_trgm_idx')).toContain("'% 777.%'");
		expect(conditions('applications_display_name_trgm_idx')).not.toContain('icant');
		expect(conditions('applications_contact_trgm_idx')).toContain("'%icant 777.%'");
	});
});
