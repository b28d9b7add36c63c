import { rmSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import { migrationsBefore } from '../helpers/migrations-before';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTeamMember, removeTeamMember, teamGrants } from '../../src/lib/server/team/team';
import { NO_ROSTER } from '../../src/lib/server/platform/roster';
import { effectiveMember } from '../../src/lib/server/team/roles';
import { rowsOf } from '../../src/lib/server/db/rows';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { randomAddress } from '../helpers/members';
import type { SignedInMember } from '../../src/lib/server/auth/guards';

// The team's rules where the portal has no configured owner (issue 59): the last owner stays; the
// unique row per address, role and programme holds with a null programme (NULLS NOT DISTINCT).
describe.each(engines)('the team on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	const owner = (address: string): SignedInMember => ({ address, isAdmin: true, isReviewer: true, role: 'owner' });

	it('removing the last owner is refused (409) and nothing is written; with two, one may go', async () => {
		const first = randomAddress();
		await t.db.execute(sql`insert into team_members (address, role, added_by) values (${first}, 'owner', 'sql')`);
		const count = async () =>
			rowsOf<{ n: number }>(await t.db.execute(sql`select count(*)::int as n from team_events`))[0]!.n;
		const before = await count();
		expect(await removeTeamMember(t.db, NO_ROSTER, owner(first), { address: first, role: 'owner' })).toMatchObject({
			ok: false,
			status: 409
		});
		expect(await count()).toBe(before);
		const second = randomAddress();
		expect((await addTeamMember(t.db, null, owner(first), { address: second, role: 'owner' })).ok).toBe(true);
		expect((await removeTeamMember(t.db, NO_ROSTER, owner(second), { address: first, role: 'owner' })).ok).toBe(true);
		expect(await removeTeamMember(t.db, NO_ROSTER, owner(second), { address: second, role: 'owner' })).toMatchObject({
			status: 409
		});
		expect(await count()).toBe(before + 2);
	});

	it('one row per address, role and programme, a null programme included', async () => {
		const a = randomAddress();
		const insert = () =>
			t.db.execute(sql`insert into team_members (address, role, added_by) values (${a}, 'reviewer', 'sql')`);
		await insert();
		await expect(insert()).rejects.toThrow();
		// Through decision 0040's view, a second insert is a no-op and the row is the team's.
		await t.db.execute(sql`insert into reviewers (address, added_by) values (${a}, 'sql')`);
		const grants = await teamGrants(t.db, Date.now() + 10_000);
		expect(grants.get(a)).toEqual([{ role: 'reviewer', programId: null }]);
		await t.db.execute(sql`delete from reviewers where address = ${a}`);
		expect((await teamGrants(t.db, Date.now() + 20_000)).get(a)).toBeUndefined();
	});

	it('effective roles: configured owners, admins of every programme or some, reviewers', () => {
		const a = randomAddress();
		expect(effectiveMember(a, new Set([a]), new Set(), [])).toMatchObject({ isAdmin: true, role: 'owner' });
		expect(effectiveMember(a, new Set(), new Set(), [{ role: 'admin', programId: 2 }])).toEqual({
			address: a,
			isAdmin: true,
			isReviewer: true,
			role: 'admin',
			programIds: [2]
		});
		expect(
			effectiveMember(a, new Set(), new Set(), [
				{ role: 'admin', programId: 2 },
				{ role: 'admin', programId: null }
			])
		).not.toHaveProperty('programIds');
		expect(effectiveMember(a, new Set(), new Set([a]), [{ role: 'reviewer', programId: 3 }])).toEqual({
			address: a,
			isAdmin: false,
			isReviewer: true,
			role: 'reviewer'
		});
		expect(effectiveMember(a, new Set(), new Set(), [])).toEqual({ address: a, isAdmin: false });
	});
});

// The migration over a portal that had reviewers (0028 and before): each row becomes a team reviewer of
// every programme, as added (by whom, when), and the `reviewers` view still reads and writes them.
describe('0029_team over the reviewers a portal already had', () => {
	it('folds every reviewer into the team, nobody lost, and the view keeps working', async () => {
		const before = migrationsBefore(29);
		const client = new PGlite(pgliteOptions('memory://'));
		const db = drizzle(client);
		try {
			await migrate(db, { migrationsFolder: before });
			const [a, b] = [randomAddress(), randomAddress()];
			await client.exec(`insert into reviewers (address, added_by, added_at) values
				('${a}', '0x${'1'.repeat(40)}', '2026-11-01T10:00:00Z'), ('${b}', '0x${'2'.repeat(40)}', '2026-11-02T10:00:00Z')`);
			await migrate(db, { migrationsFolder: 'drizzle' });
			const team = await client.query<{ address: string; role: string; program_id: number | null; added_by: string }>(
				'select address, role, program_id, added_by from team_members order by added_at'
			);
			expect(team.rows).toEqual([
				{ address: a, role: 'reviewer', program_id: null, added_by: `0x${'1'.repeat(40)}` },
				{ address: b, role: 'reviewer', program_id: null, added_by: `0x${'2'.repeat(40)}` }
			]);
			await client.exec(`delete from reviewers where address = '${a}'`);
			expect((await client.query<{ address: string }>('select address from reviewers')).rows).toEqual([{ address: b }]);
		} finally {
			await client.close();
			rmSync(before, { recursive: true, force: true });
		}
	});
});
