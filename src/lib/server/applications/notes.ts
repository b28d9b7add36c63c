import * as v from 'valibot';
import { LENGTHS } from '$lib/platform/limits';
import type { Database } from '../db/client';
import { applicationNotes, type ApplicationNote } from '../db/schema';
import { textField, validate } from '../platform/forms';
import { failureOfDatabaseError, notFound, type Outcome } from '../platform/outcome';
import type { SignedInMember } from '../auth/guards';
import type { OutboxTargets } from '../platform/outbox-targets';
import { enqueueWebhookEvent, noteAdded } from '../webhooks/events';
import { placeOfApplication } from '../programs/place';
import { m } from '$lib/paraglide/messages';

export const NOTE_FIELDS = ['body'] as const;

const noteSchema = v.object({ body: textField('Note', { ...LENGTHS.reviewerNote, multiline: true }) });

/**
 * A reviewer note on an application: admins only (the route's guard), append-only (nothing here or
 * anywhere updates or deletes one), never part of what the applicant's own page loads.
 */
export async function addNote(
	db: Database,
	outbox: OutboxTargets,
	admin: SignedInMember,
	applicationId: string,
	input: unknown
): Promise<Outcome<ApplicationNote>> {
	const parsed = validate(noteSchema, input);
	if (!parsed.ok) return parsed;
	try {
		// The note and its webhook event (docs/webhooks.md) commit or roll back together.
		const note = await db.transaction(async (tx) => {
			const [row] = await tx
				.insert(applicationNotes)
				.values({ applicationId, authorAddress: admin.address, body: parsed.value.body })
				.returning();
			if (!row) throw new Error('insert returned no row');
			await enqueueWebhookEvent(tx, outbox, noteAdded(row, await placeOfApplication(tx, applicationId)));
			return row;
		});
		return { ok: true, value: note };
	} catch (err) {
		// The foreign key to applications: no application has this id (the page itself is a 404 then).
		return failureOfDatabaseError(err, { foreignKey: notFound(m.admin_no_application_id()) });
	}
}
