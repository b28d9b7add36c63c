/**
 * Numbers and patterns that the database schema, the server's validation and the pages' markup must
 * agree on, in one place each (shared with the browser). Changing a length here changes the form's
 * maxlength, the valibot check and the schema's CHECK; the last needs a migration (drizzle/).
 */

/** Characters of each text a person types, counted as Postgres counts them (code points). */
export const LENGTHS = {
	displayName: { min: 1, max: 80 },
	motivation: { min: 1, max: 2000 },
	contact: { max: 200 },
	checkinNote: { max: 280 },
	reviewerNote: { min: 1, max: 2000 },
	reason: { max: 500 },
	/** A reviewer's comment with their vote (required with `reject`). */
	voteComment: { max: 2000 },
	/** 0x + 64 hexadecimal characters. */
	txHash: { max: 66 },
	/** The review table's search box. */
	search: { max: 100 }
} as const;

/** A lowercase UUID as Postgres writes one; RegExp source, for patterns that embed it. */
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A UUID as the database writes it (lowercase): paths must match exactly, or they are an unknown page. */
export const UUID = new RegExp(`^${UUID_SOURCE}$`);
/** A UUID as a form may send it, any case; stored lowercase. */
export const UUID_ANY_CASE = new RegExp(`^${UUID_SOURCE}$`, 'i');

/** Most applications one bulk move may name. */
export const BULK_MAX = 100;

/** Rows per page of the review table. */
export const ADMIN_PAGE_SIZE = 50;
