import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client';
import { programs, teamEvents, teamMembers } from '../db/schema';
import type { SignedInMember, TeamRole } from '../auth/guards';
import { conflict, forbidden, invalid, notFound, rateLimited, type Outcome } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import { transactionOutcome } from '../platform/transaction';
import { passOnOpenAssignments } from '../reviews/assignment';
import { forgetReviewers } from '../reviews/roster';
import type { Roster } from '../platform/roster';
import { m } from '$lib/paraglide/messages';
import { addressOfEnsName, type EnsAddress } from './ens';
import type { RpcEndpoint } from '../platform/endpoints';
import { effectiveMember, TEAM_ROLES, type TeamGrant } from './roles';

/** How long a read of the team is used before the next: a change shows on every process's next request within it. */
export const TEAM_CACHE_MS = 1000;

type Grants = ReadonlyMap<string, readonly TeamGrant[]>;
const cache = new WeakMap<Database, { grants: Grants; at: number }>();

/** Every address's rows of the team, read at most once per TEAM_CACHE_MS in a process; its own changes at once. */
export async function teamGrants(db: Database, now = Date.now()): Promise<Grants> {
	const hit = cache.get(db);
	if (hit && now - hit.at < TEAM_CACHE_MS && now >= hit.at) return hit.grants;
	const rows = await db
		.select({ address: teamMembers.address, role: teamMembers.role, programId: teamMembers.programId })
		.from(teamMembers);
	const grants = new Map<string, TeamGrant[]>();
	for (const r of rows) {
		const list = grants.get(r.address) ?? [];
		list.push({ role: r.role as TeamRole, programId: r.programId });
		grants.set(r.address, list);
	}
	cache.set(db, { grants, at: now });
	return grants;
}

/** After this process changed the team: its next request reads it again. */
function forget(db: Database) {
	cache.delete(db);
	forgetReviewers(db);
}

export const TEAM_FIELDS = ['address', 'role', 'program'] as const;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

interface Change {
	address: string;
	role: TeamRole;
	programId: number | null;
}

/** Why an ENS name gave no address, in the words the form shows. */
const ENS_REFUSAL: Record<Exclude<EnsAddress, { ok: true }>['reason'], (name: string) => string> = {
	off: () => m.team_address_ens(),
	invalid: () => m.team_address_ens_invalid(),
	unresolved: (name) => m.team_address_ens_unresolved({ name }),
	unreachable: () => m.team_address_ens_unreachable()
};

/**
 * The fields checked: a wallet address, or an ENS name where ENS_RPC_URL is set (resolved forward now; the
 * address is what is written); a role that exists; a programme by its slug. `byName` only for adding: an
 * ENS name is then resolved through its `ens` endpoint (null: ENS_RPC_URL unset, refused saying so).
 */
async function parseChange(
	db: Database,
	input: Record<string, unknown>,
	byName: { ens: RpcEndpoint | null } | null = null
): Promise<Outcome<Change>> {
	const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
	const errors: Record<string, string> = {};
	let address = text(input.address);
	if (!ADDRESS.test(address)) {
		if (!byName || !address.includes('.')) errors.address = m.team_address_invalid();
		else {
			const found = await addressOfEnsName(byName.ens, address);
			if (found.ok) address = found.address;
			else errors.address = ENS_REFUSAL[found.reason](address.slice(0, 80));
		}
	}
	const role = text(input.role);
	if (!(TEAM_ROLES as readonly string[]).includes(role)) errors.role = m.team_role_invalid();
	const slug = text(input.program);
	let programId: number | null = null;
	if (slug) {
		const [row] = await db.select({ id: programs.id }).from(programs).where(eq(programs.slug, slug)).limit(1);
		if (!row) errors.program = m.team_program_unknown();
		else programId = row.id;
	}
	if (!errors.role && role === 'owner' && slug) errors.program = m.team_owner_every_program();
	if (Object.keys(errors).length) return invalid(errors);
	return { ok: true, value: { address: address.toLowerCase(), role: role as TeamRole, programId } };
}

/**
 * Who may change what: owners add and remove owners and admins; owners and admins reviewers; an admin of
 * some programmes only reviewers of those (another programme is the 404 an unknown one would be).
 */
function mayChange(actor: SignedInMember, change: Change): Outcome<true> {
	if (change.role !== 'reviewer')
		return actor.role === 'owner' ? { ok: true, value: true } : forbidden(m.team_owners_only());
	if (!actor.isAdmin) return forbidden(m.team_owners_only());
	if (actor.programIds && (change.programId === null || !actor.programIds.includes(change.programId)))
		return notFound(m.team_program_not_yours());
	return { ok: true, value: true };
}

// Every change of the team takes this lock first, so that two removals never both count the other owner.
const TEAM_LOCK = 440_059;

/**
 * Adds a role (one already held is left as it is, and no event written); the team_events row in the same
 * transaction. `ens`: ENS_RPC_URL (runtime().chain.ens), through which an address typed as a name resolves.
 */
export async function addTeamMember(
	db: Database,
	ens: RpcEndpoint | null,
	actor: SignedInMember,
	input: Record<string, unknown>
): Promise<Outcome<Change & { added: boolean }>> {
	const limit = await consume(db, actor.address, 'teamChange');
	if (!limit.ok) return rateLimited(limit);
	const parsed = await parseChange(db, input, { ens });
	if (!parsed.ok) return parsed;
	const change = parsed.value;
	const may = mayChange(actor, change);
	if (!may.ok) return may;
	const outcome = await transactionOutcome(db, async (tx): Promise<Outcome<Change & { added: boolean }>> => {
		await tx.execute(sql`select pg_advisory_xact_lock(${TEAM_LOCK})`);
		const added = await tx
			.insert(teamMembers)
			.values({ ...change, addedBy: actor.address })
			.onConflictDoNothing()
			.returning({ id: teamMembers.id });
		if (added.length) await tx.insert(teamEvents).values({ actor: actor.address, action: 'add', ...change });
		return { ok: true as const, value: { ...change, added: added.length > 0 } };
	});
	forget(db);
	return outcome;
}

/**
 * Removes a role. The configuration's owners and reviewers (`roster`, runtime().roster) are refused
 * (409), as is the last owner; a reviewer's votes stay, and when they review no more, their open
 * assignments pass on (decision 0040).
 */
export async function removeTeamMember(
	db: Database,
	roster: Roster,
	actor: SignedInMember,
	input: Record<string, unknown>
): Promise<Outcome<Change>> {
	const limit = await consume(db, actor.address, 'teamChange');
	if (!limit.ok) return rateLimited(limit);
	const parsed = await parseChange(db, input);
	if (!parsed.ok) return parsed;
	const change = parsed.value;
	const may = mayChange(actor, change);
	if (!may.ok) return may;
	if (change.role === 'owner' && roster.owners.has(change.address)) return conflict(m.team_configured_owner());
	if (change.role === 'reviewer' && change.programId === null && roster.reviewers.has(change.address))
		return conflict(m.team_configured_reviewer());
	const outcome = await transactionOutcome(db, async (tx): Promise<Outcome<Change>> => {
		await tx.execute(sql`select pg_advisory_xact_lock(${TEAM_LOCK})`);
		const program =
			change.programId === null ? isNull(teamMembers.programId) : eq(teamMembers.programId, change.programId);
		const [row] = await tx
			.delete(teamMembers)
			.where(and(eq(teamMembers.address, change.address), eq(teamMembers.role, change.role), program))
			.returning({ id: teamMembers.id });
		if (!row) return notFound(m.team_not_found());
		if (change.role === 'owner') {
			const [left] = await tx
				.select({ n: sql<number>`count(*)::int` })
				.from(teamMembers)
				.where(eq(teamMembers.role, 'owner'));
			if (roster.owners.size === 0 && Number(left?.n ?? 0) === 0) return conflict(m.team_last_owner());
		}
		await tx.insert(teamEvents).values({ actor: actor.address, action: 'remove', ...change });
		if (change.role === 'reviewer') await passOnOpenAssignments(tx, roster, change.address, null, change.programId);
		return { ok: true as const, value: change };
	});
	forget(db);
	return outcome;
}

export interface TeamEntry {
	address: string;
	role: TeamRole;
	/** Null: every programme. */
	program: { slug: string; name: string } | null;
	fromConfiguration: boolean;
	addedBy: string | null;
	addedAt: Date | null;
}

const ORDER: Record<TeamRole, number> = { owner: 0, admin: 1, reviewer: 2 };

/** /admin/team's list: owners, admins, reviewers; the configuration's first in each, then by address. */
export async function listTeam(db: Database, roster: Roster): Promise<TeamEntry[]> {
	const rows = await db
		.select({
			address: teamMembers.address,
			role: teamMembers.role,
			slug: programs.slug,
			name: programs.name,
			addedBy: teamMembers.addedBy,
			addedAt: teamMembers.addedAt
		})
		.from(teamMembers)
		.leftJoin(programs, eq(programs.id, teamMembers.programId))
		.orderBy(asc(teamMembers.address), asc(programs.slug));
	const fixed = (role: TeamRole, set: ReadonlySet<string>): TeamEntry[] =>
		[...set]
			.sort()
			.map((address) => ({ address, role, program: null, fromConfiguration: true, addedBy: null, addedAt: null }));
	const { owners, reviewers } = roster;
	const entries: TeamEntry[] = [
		...fixed('owner', owners),
		...fixed('reviewer', reviewers),
		...rows
			.filter((r) => !(r.role === 'owner' && owners.has(r.address)))
			.filter((r) => !(r.role === 'reviewer' && r.slug === null && reviewers.has(r.address)))
			.map((r) => ({
				address: r.address,
				role: r.role as TeamRole,
				program: r.slug === null ? null : { slug: r.slug, name: r.name! },
				fromConfiguration: false,
				addedBy: r.addedBy,
				addedAt: r.addedAt
			}))
	];
	return entries.sort(
		(a, b) =>
			ORDER[a.role] - ORDER[b.role] ||
			Number(b.fromConfiguration) - Number(a.fromConfiguration) ||
			a.address.localeCompare(b.address)
	);
}

export interface TeamEventEntry {
	actor: string;
	action: 'add' | 'remove';
	address: string;
	role: TeamRole;
	program: string | null;
	/** The programme's slug (null: every programme), by which a page names it in its own locale. */
	programSlug: string | null;
	at: Date;
}

/** The latest changes of the team, newest first. */
export async function recentTeamEvents(db: Database, limit = 50): Promise<TeamEventEntry[]> {
	const p = alias(programs, 'p');
	const rows = await db
		.select({
			actor: teamEvents.actor,
			action: teamEvents.action,
			address: teamEvents.address,
			role: teamEvents.role,
			program: p.name,
			programSlug: p.slug,
			at: teamEvents.createdAt
		})
		.from(teamEvents)
		.leftJoin(p, eq(p.id, teamEvents.programId))
		.orderBy(desc(teamEvents.createdAt), desc(teamEvents.id))
		.limit(limit);
	return rows.map((r) => ({ ...r, action: r.action as 'add' | 'remove', role: r.role as TeamRole }));
}

/**
 * Of `addresses` (those who voted on an application of `programId`), the ones who may no longer review it:
 * removed from the team, or now of another programme only. Their votes stay and are marked (issue 59).
 */
export async function formerReviewers(
	db: Database,
	roster: Roster,
	addresses: readonly string[],
	programId: number
): Promise<string[]> {
	if (!addresses.length) return [];
	const grants = await teamGrants(db);
	return [...new Set(addresses)].filter((address) => {
		const who = effectiveMember(address, roster.owners, roster.reviewers, grants.get(address) ?? []);
		if (!who.isAdmin && !who.isReviewer) return true;
		return who.programIds !== undefined && !who.programIds.includes(programId);
	});
}
