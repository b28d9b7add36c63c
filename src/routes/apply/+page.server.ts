import { loadApply, submitTo } from './apply-route';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadApply(event);

export const actions: Actions = {
	default: (event) => submitTo(null, event)
};
