import { and, eq, sql } from 'drizzle-orm';
import type { Handle } from '@sveltejs/kit';
import type { Database } from '../db/client';
import { builtOnce } from '../db/prepared';
import { applicationDrafts } from '../db/schema';
import type { FormFields } from '../platform/forms';
import { rateLimited, type Outcome } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import { KEY } from '$lib/forms/questions';
import { m } from '$lib/paraglide/messages';

/**
 * Drafts (issue 58, docs/application-form.md "Drafts"): what a member typed into a programme's form,
 * saved as they type (`POST /apply…?/draft`), put back on their next visit from any browser, deleted by
 * their submission. One per member and programme. Only its member reads it: never an admin's or a
 * reviewer's page, an export or a webhook.
 */

/** The largest draft stored: its fields as JSON, in UTF-8 bytes (the contract's 512 KiB). */
export const DRAFT_MAX_BYTES = 512 * 1024;

/** What a draft holds: the form's field names (the built-in fields and `answers.<key>`) → what was typed. */
export type DraftFields = Record<string, string | string[]>;

const BUILT_IN = new Set(['displayName', 'motivation', 'contact']);
const ANSWER = 'answers.';

// NUL, which no keyboard types and a jsonb value cannot hold (Postgres refused the draft with a 500).
// eslint-disable-next-line no-control-regex -- removing the control character is the point
const NUL = /\u0000/g;

/**
 * The typed text of a form post, as a draft keeps it: the apply form's own fields only, files and other
 * names left out, NUL characters dropped (the submission itself refuses them, naming the field).
 */
export function draftFieldsOf(form: FormFields): DraftFields {
	const fields = Object.create(null) as DraftFields;
	for (const name of form.keys()) {
		const own = BUILT_IN.has(name) || (name.startsWith(ANSWER) && KEY.test(name.slice(ANSWER.length)));
		if (!own) continue;
		const texts = form
			.getAll(name)
			.filter((v): v is string => typeof v === 'string')
			.map((v) => v.replace(NUL, ''));
		if (texts.length) fields[name] = name.startsWith(ANSWER) && texts.length > 1 ? texts : texts[0]!;
	}
	return { ...fields };
}

/**
 * saveDraft: stores `fields` as the member's draft for `programId` (replacing the last one). Checked
 * only for size: over DRAFT_MAX_BYTES is a 413 `too_large`, nothing stored. Spends one `saveDraft`.
 */
export async function saveDraft(
	db: Database,
	address: string,
	programId: number,
	fields: DraftFields
): Promise<Outcome<{ updatedAt: Date }>> {
	const json = JSON.stringify(fields);
	if (Buffer.byteLength(json, 'utf8') > DRAFT_MAX_BYTES)
		return { ok: false, status: 413, code: 'too_large', message: m.apply_draft_too_large() };
	const limit = await consume(db, address, 'saveDraft');
	if (!limit.ok) return rateLimited(limit);
	const [row] = await db
		.insert(applicationDrafts)
		.values({ memberAddress: address, programId, fields })
		.onConflictDoUpdate({
			target: [applicationDrafts.memberAddress, applicationDrafts.programId],
			set: { fields, updatedAt: sql`now()` }
		})
		.returning({ updatedAt: applicationDrafts.updatedAt });
	return { ok: true, value: { updatedAt: row!.updatedAt } };
}

/** The member's draft for the programme, or null. */
export async function draftOf(
	db: Pick<Database, 'select'>,
	address: string,
	programId: number
): Promise<{ fields: DraftFields; updatedAt: Date } | null> {
	const [row] = await db
		.select({ fields: applicationDrafts.fields, updatedAt: applicationDrafts.updatedAt })
		.from(applicationDrafts)
		.where(and(eq(applicationDrafts.memberAddress, address), eq(applicationDrafts.programId, programId)));
	return row ?? null;
}

/** Deletes the member's draft for the programme: in the transaction of the submission that replaces it. */
export async function deleteDraft(db: Database, address: string, programId: number) {
	await deleteDraftStatement(db, { address, programId });
}
// Prepared and built once (db/prepared.ts): every submission runs it.
const deleteDraftStatement = builtOnce('delete_draft', (db) =>
	db
		.delete(applicationDrafts)
		.where(
			and(
				eq(applicationDrafts.memberAddress, sql.placeholder('address')),
				eq(applicationDrafts.programId, sql.placeholder('programId'))
			)
		)
);

/** The draft's answers by question key, as the form's question fields take them. */
export function draftAnswers(fields: DraftFields): Record<string, string | string[]> {
	const answers: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(fields))
		if (name.startsWith(ANSWER) && KEY.test(name.slice(ANSWER.length))) answers[name.slice(ANSWER.length)] = value;
	return answers;
}

/** A built-in field of the draft as text ('' when absent). */
export const draftText = (fields: DraftFields, name: 'displayName' | 'motivation' | 'contact') => {
	const value = fields[name];
	return typeof value === 'string' ? value : '';
};

const APPLY_PATH = /^\/(?:[a-z]{2}(?:-[a-z]{2,4})?\/)?apply(?:\/[a-z][a-z0-9-]{0,39})?\/?$/i;

/**
 * Whether a post to `?/draft` comes from a script's `fetch` (the page's autosave, an API client): not a
 * navigation, not asking for HTML first, not SvelteKit's use:enhance. Such a post is answered 204, or its
 * refusal's status with the JSON error body; a browser's form post gets the 303 back to the form.
 */
export const draftByScript = (request: Request) =>
	request.headers.get('sec-fetch-mode') !== 'navigate' &&
	!/^\s*text\/html/i.test(request.headers.get('accept') ?? '') &&
	request.headers.get('x-sveltekit-action') !== 'true';

/**
 * The draft action's success to a script (the contract's "204 to fetch"): a form action can only
 * redirect, which SvelteKit answers a non-HTML post with as JSON (`{ "type": "redirect" }`, 200); that
 * answer becomes a 204. Everything else passes as it is.
 */
export const draftAnswers204: Handle = async ({ event, resolve }) => {
	const response = await resolve(event);
	if (
		event.request.method !== 'POST' ||
		!event.url.searchParams.has('/draft') ||
		!APPLY_PATH.test(event.url.pathname) ||
		response.status !== 200 ||
		!draftByScript(event.request) ||
		!response.headers.get('content-type')?.startsWith('application/json')
	)
		return response;
	const body = (await response.clone().json()) as { type?: string };
	if (body.type !== 'redirect') return response;
	const headers = new Headers(response.headers);
	for (const name of ['content-type', 'content-length', 'location']) headers.delete(name);
	return new Response(null, { status: 204, headers });
};
