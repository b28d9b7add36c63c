import { loadProgramApply, submitTo } from '../apply-route';
import { alongsideDefault, draftTo, editOf, withdrawOf } from '../own-actions';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadProgramApply(event);

// The submission, and the applicant's own application (issue 58): the draft, editing, withdrawing.
export const actions = {
	default: (event) => submitTo(event.params.slug, event),
	draft: (event) => draftTo(event.params.slug, event),
	edit: (event) => editOf(event.params.slug, event),
	withdraw: (event) => withdrawOf(event.params.slug, event)
} satisfies Actions;
alongsideDefault(actions);
