import { loadProgramApply, submitTo } from '../apply-route';
import type { Actions, PageServerLoad } from './$types';

export const load: PageServerLoad = (event) => loadProgramApply(event);

export const actions: Actions = {
	default: (event) => submitTo(event.params.slug, event)
};
