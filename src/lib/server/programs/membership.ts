import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { programs } from '../db/schema';
import { MEMBERSHIP_SLUG, PROGRAM_LENGTHS } from '$lib/programs/programs';

/** The name drizzle/0023 gave programme `membership`: the community's name when none is configured. */
export const MEMBERSHIP_NAME_AT_MIGRATION = 'Member portal';

/**
 * Programme `membership` carries the community's name (PUBLIC_COMMUNITY_NAME, which the build holds and
 * the migration cannot read): at each start, while the programme still has the name the migration
 * gave it, it takes the configured one. A name an admin gives it later is its own and stays.
 */
export async function nameMembershipProgram(db: Pick<Database, 'update'>, communityName: string): Promise<void> {
	const name = [...communityName.trim()].slice(0, PROGRAM_LENGTHS.name.max).join('');
	if (name === '' || name === MEMBERSHIP_NAME_AT_MIGRATION) return;
	await db
		.update(programs)
		.set({ name })
		.where(and(eq(programs.slug, MEMBERSHIP_SLUG), eq(programs.name, MEMBERSHIP_NAME_AT_MIGRATION)));
}
