import { loadApply, submitTo } from './apply-route';
import { alongsideDefault, draftTo, editOf, withdrawOf } from './own-actions';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadApply(event);

// The submission, and the applicant's own application (issue 58): the draft, editing, withdrawing.
export const actions = {
	default: (event) => submitTo(null, event),
	draft: (event) => draftTo(null, event),
	edit: (event) => editOf(null, event),
	withdraw: (event) => withdrawOf(null, event)
} satisfies Actions;
alongsideDefault(actions);
