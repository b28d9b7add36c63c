import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApplications, parseAdminQuery } from '../../src/lib/server/admin-list';
import { transitionApplication } from '../../src/lib/server/applications';
import { allowlistCsv, pendingAllowlist } from '../../src/lib/server/exports';
import type { Database } from '../../src/lib/server/db/client';
import { applyMigrations } from '../../src/lib/server/db/migrate';
import * as schema from '../../src/lib/server/db/schema';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { addMember, adminMember, randomTxHash, seedApplication } from '../helpers/members';

const query = (search: string) => parseAdminQuery(new URLSearchParams(search));

describe.each(engines)('the admin list on %s', (engine) => {
	let t: TestDatabase;
	const ids: string[] = [];
	const addresses: string[] = [];
	beforeAll(async () => {
		t = await createTestDatabase(engine);
		// 45 applications, one a minute apart, newest last; every third approved, every fifth rejected.
		for (let i = 0; i < 45; i++) {
			const member = await addMember(t.db);
			const review = i % 3 === 0 ? 'approved' : i % 5 === 0 ? 'rejected' : 'pending';
			const app = await seedApplication(t.db, member.address, { review });
			await t.db.execute(
				sql`update applications set created_at = now() - make_interval(mins => ${45 - i}) where id = ${app.id}`
			);
			ids.push(app.id);
			addresses.push(member.address);
		}
		const admin = adminMember();
		await transitionApplication(t.db, admin, {
			applicationId: ids[3],
			field: 'allowlist',
			to: 'added',
			txHash: randomTxHash()
		});
		await transitionApplication(t.db, admin, {
			applicationId: ids[6],
			field: 'allowlist',
			to: 'failed',
			reason: 'out of gas'
		});
		await transitionApplication(t.db, admin, {
			applicationId: ids[6],
			field: 'allowlist',
			to: 'added',
			txHash: randomTxHash()
		});
	});
	afterAll(() => t?.drop());

	it('lists newest first, 20 to a page, with the total and the page count', async () => {
		const first = await listApplications(t.db, query(''));
		expect(first).toMatchObject({ total: 45, page: 1, pages: 3, pageSize: 20 });
		expect(first.items.map((a) => a.id)).toEqual(ids.slice(25).reverse());
		const last = await listApplications(t.db, query('page=3'));
		expect(last.items.map((a) => a.id)).toEqual(ids.slice(0, 5).reverse());
		const beyond = await listApplications(t.db, query('page=9'));
		expect(beyond).toMatchObject({ items: [], total: 45, pages: 3 });
	});

	it('filters by each state, combined', async () => {
		const approved = await listApplications(t.db, query('review=approved'));
		expect(approved.total).toBe(15);
		expect(approved.items.every((a) => a.review === 'approved')).toBe(true);
		const added = await listApplications(t.db, query('review=approved&allowlist=added'));
		expect(added.items.map((a) => a.id).sort()).toEqual([ids[3], ids[6]].sort());
		expect((await listApplications(t.db, query('distribution=sent'))).total).toBe(0);
		expect((await listApplications(t.db, query('review=rejected'))).items.every((a) => a.review === 'rejected')).toBe(
			true
		);
	});

	it('searches by address, whole or part, in any case', async () => {
		const target = addresses[10]!;
		expect(
			(await listApplications(t.db, query(`address=${target.toUpperCase().replace('0X', '0x')}`))).items.map(
				(a) => a.id
			)
		).toEqual([ids[10]]);
		const part = target.slice(12, 22);
		const found = await listApplications(t.db, query(`address=${part}`));
		expect(found.items.map((a) => a.id)).toContain(ids[10]);
		expect(found.items.every((a) => a.applicantAddress.includes(part))).toBe(true);
	});

	it('gives each application its own audit history, oldest first', async () => {
		const { items } = await listApplications(t.db, query('review=approved&allowlist=added'));
		const six = items.find((a) => a.id === ids[6])!;
		expect(six.events.map((e) => `${e.fromState}>${e.toState}`)).toEqual(['pending>failed', 'failed>added']);
		const three = items.find((a) => a.id === ids[3])!;
		expect(three.events).toHaveLength(1);
		expect(three.events[0]!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
	});

	it('the CSV lists approved applicants whose allowlist is pending, oldest first, with formulas defused', async () => {
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

describe('the admin list costs the same number of statements whatever the page holds', () => {
	it('two statements for a page of 20 applications with 5 audit rows each, and for a page of 1', async () => {
		const client = new PGlite('memory://');
		let statements = 0;
		const db = drizzle(client, { schema, logger: { logQuery: () => void statements++ } }) as unknown as Database;
		try {
			await applyMigrations(db, 'pglite', 'drizzle');
			const admin = adminMember();
			for (let i = 0; i < 21; i++) {
				const member = await addMember(db);
				const app = await seedApplication(db, member.address);
				for (let e = 0; e < 5; e++) {
					await db.insert(schema.applicationEvents).values({
						applicationId: app.id,
						executorAddress: admin.address,
						field: 'review',
						fromState: 'pending',
						toState: 'needs_info',
						reason: `#${e}`
					});
				}
			}
			statements = 0;
			const full = await listApplications(db, query(''));
			expect(full.items).toHaveLength(20);
			expect(full.items.every((a) => a.events.length === 5)).toBe(true);
			expect(statements).toBe(2);
			statements = 0;
			const one = await listApplications(db, query('page=2'));
			expect(one.items).toHaveLength(1);
			expect(statements).toBe(2);
		} finally {
			await client.close();
		}
	});
});
