/**
 * Who the configuration makes owners (ADMIN_ADDRESSES) and reviewers of every programme
 * (REVIEWER_ADDRESSES), lower-case: members without a team row, never removable on /admin/team.
 * `startRuntime` builds it once (`runtime().roster`); a route passes it to the operation it calls
 * (`listTeam(db, runtime().roster)`), which passes it down: an argument, never a value a domain holds.
 */
export interface Roster {
	owners: ReadonlySet<string>;
	reviewers: ReadonlySet<string>;
}

/** No configured owners or reviewers: everyone on the team has a row. */
export const NO_ROSTER: Roster = { owners: new Set(), reviewers: new Set() };
