import { editor_fields_need_attention } from '$lib/paraglide/messages/editor_fields_need_attention.js';
import { editor_form_incomplete } from '$lib/paraglide/messages/editor_form_incomplete.js';

/**
 * What the form builder's editors (questions, rubric criteria) share when they read a post: the 400 they
 * answer, and the rows of `<list>.<i>.<field>` put in index order once the post's own count of them agrees.
 */

export type FieldErrors = Record<string, string>;
/** The shape of the server's 400 (platform/outcome.ts), so a route can answer it as it is. */
export type Refused = { ok: false; status: 400; code: 'invalid_request'; message: string; errors: FieldErrors };
export type Checked<T> = { ok: true; value: T } | Refused;

export const refusal = (errors: FieldErrors): Refused => ({
	ok: false,
	status: 400,
	code: 'invalid_request',
	message: editor_fields_need_attention(),
	errors
});

/**
 * The posted rows by index, in index order: refused when there are more than `max` (`tooMany`, on the
 * list's own field) or when the post's count field does not say exactly how many it sent (a post that lost
 * its fields never saves a shorter list).
 */
export function rowsInOrder<F>(
	form: { getAll(name: string): FormDataEntryValue[] },
	byIndex: ReadonlyMap<number, F>,
	list: { field: string; countField: string; max: number; tooMany: (max: number) => string }
): Checked<[number, F][]> {
	if (byIndex.size > list.max) return refusal({ [list.field]: list.tooMany(list.max) });
	const count = form.getAll(list.countField);
	if (count.length !== 1 || count[0] !== String(byIndex.size))
		return refusal({ [list.field]: editor_form_incomplete() });
	return { ok: true, value: [...byIndex.entries()].sort(([a], [b]) => a - b) };
}
