import { eq, inArray } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { teamNames } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import { textField, validate } from '../platform/forms';
import { forbidden, invalid, notFound, rateLimited, type Outcome } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import { m } from '$lib/paraglide/messages';
import { effectiveMember } from './roles';
import { teamGrants } from './team';
import type { Roster } from '../platform/roster';

export const TEAM_NAME_FIELDS = ['address', 'displayName'] as const;
/** The longest display name, in characters. */
export const TEAM_NAME_MAX = 80;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const nameSchema = v.object({ displayName: textField(() => m.team_name_label(), { max: TEAM_NAME_MAX }) });

/** The member an address makes in the team now, or null when it holds no role there. */
async function teamMemberOf(db: Database, roster: Roster, address: string): Promise<SignedInMember | null> {
	const grants = (await teamGrants(db)).get(address) ?? [];
	const member = effectiveMember(address, roster.owners, roster.reviewers, grants);
	return member.role ? member : null;
}

/**
 * Who may name whom: everyone on the team themselves; an owner anyone on the team; an admin a reviewer of
 * the programmes they run (every programme's admin: any reviewer). Another admin or an owner: owners only.
 */
function mayName(actor: SignedInMember, target: SignedInMember): Outcome<true> {
	if (actor.address === target.address || actor.role === 'owner') return { ok: true, value: true };
	if (!actor.isAdmin || target.role !== 'reviewer') return forbidden(m.team_name_owners_only());
	if (actor.programIds && (!target.programIds || target.programIds.some((id) => !actor.programIds!.includes(id))))
		return forbidden(m.team_name_owners_only());
	return { ok: true, value: true };
}

/**
 * Sets (or, when empty, clears) the display name of `address` (the actor's own when none is given): plain
 * text of 1–80 characters, trimmed; control, invisible and text-direction characters refused naming
 * `displayName`. Counts against the `teamChange` limit; nothing is written on a refusal.
 */
export async function setTeamName(
	db: Database,
	roster: Roster,
	actor: SignedInMember,
	input: Record<string, unknown>
): Promise<Outcome<{ address: string; displayName: string | null }>> {
	const limit = await consume(db, actor.address, 'teamChange');
	if (!limit.ok) return rateLimited(limit);
	const errors: Record<string, string> = {};
	const typed = typeof input.address === 'string' ? input.address.trim() : '';
	if (typed && !ADDRESS.test(typed)) errors.address = m.team_address_invalid();
	const parsed = validate(nameSchema, { displayName: input.displayName ?? '' });
	if (!parsed.ok) Object.assign(errors, parsed.errors);
	if (Object.keys(errors).length || !parsed.ok) return invalid(errors);
	const address = typed ? typed.toLowerCase() : actor.address;
	const target = await teamMemberOf(db, roster, address);
	if (!target) return notFound(m.team_name_not_member());
	const may = mayName(actor, target);
	if (!may.ok) return may;
	const displayName = parsed.value.displayName || null;
	if (displayName === null) await db.delete(teamNames).where(eq(teamNames.address, address));
	else
		await db
			.insert(teamNames)
			.values({ address, displayName, updatedBy: actor.address })
			.onConflictDoUpdate({
				target: teamNames.address,
				set: { displayName, updatedBy: actor.address, updatedAt: new Date() }
			});
	return { ok: true, value: { address, displayName } };
}

/** The team's display names of these lower-case addresses (those with one). */
export async function teamNamesOf(db: Database, addresses: readonly string[]): Promise<Record<string, string>> {
	if (addresses.length === 0) return {};
	const rows = await db
		.select({ address: teamNames.address, name: teamNames.displayName })
		.from(teamNames)
		.where(inArray(teamNames.address, [...addresses]));
	return Object.fromEntries(rows.map((r) => [r.address, r.name]));
}
