import { loadProgramApply, submitTo } from '../apply-route';
import { withOwnActions } from '../own-actions';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadProgramApply(event);

export const actions = withOwnActions(
	(event: Parameters<Actions[string]>[0]) => submitTo(event.params.slug, event),
	(event) => event.params.slug
) satisfies Actions;
