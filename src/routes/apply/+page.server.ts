import { loadApply, submitTo } from './apply-route';
import { withOwnActions } from './own-actions';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadApply(event);

export const actions = withOwnActions(
	(event: Parameters<Actions[string]>[0]) => submitTo(null, event),
	() => null
) satisfies Actions;
