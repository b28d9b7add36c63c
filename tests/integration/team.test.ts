import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addTeamMember, removeTeamMember, setConfiguredOwners, teamGrants } from '../../src/lib/server/team/team';
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
		setConfiguredOwners(new Set());
	});
	afterAll(() => t?.drop());
	afterEach(() => setConfiguredOwners(new Set()));

	const owner = (address: string): SignedInMember => ({ address, isAdmin: true, isReviewer: true, role: 'owner' });

	it('removing the last owner is refused (409) and nothing is written; with two, one may go', async () => {
		const first = randomAddress();
		await t.db.execute(sql`insert into team_members (address, role, added_by) values (${first}, 'owner', 'sql')`);
		const count = async () =>
			rowsOf<{ n: number }>(await t.db.execute(sql`select count(*)::int as n from team_events`))[0]!.n;
		const before = await count();
		expect(await removeTeamMember(t.db, owner(first), { address: first, role: 'owner' })).toMatchObject({
			ok: false,
			status: 409
		});
		expect(await count()).toBe(before);
		const second = randomAddress();
		expect((await addTeamMember(t.db, owner(first), { address: second, role: 'owner' })).ok).toBe(true);
		expect((await removeTeamMember(t.db, owner(second), { address: first, role: 'owner' })).ok).toBe(true);
		expect(await removeTeamMember(t.db, owner(second), { address: second, role: 'owner' })).toMatchObject({
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
