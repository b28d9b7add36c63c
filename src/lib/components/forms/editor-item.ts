import { editor_criterion_added } from '$lib/paraglide/messages/editor_criterion_added.js';
import { editor_criterion_moved_down } from '$lib/paraglide/messages/editor_criterion_moved_down.js';
import { editor_criterion_moved_up } from '$lib/paraglide/messages/editor_criterion_moved_up.js';
import { editor_criterion_removed } from '$lib/paraglide/messages/editor_criterion_removed.js';
import { editor_question_added } from '$lib/paraglide/messages/editor_question_added.js';
import { editor_question_moved_down } from '$lib/paraglide/messages/editor_question_moved_down.js';
import { editor_question_moved_up } from '$lib/paraglide/messages/editor_question_moved_up.js';
import { editor_question_retired } from '$lib/paraglide/messages/editor_question_retired.js';

/** Drag and drop of one item of a list editor (EditorItem.svelte), by its handle. */
export interface ItemDrag {
	ondragstart: (event: DragEvent) => void;
	ondragend: () => void;
	dragging: boolean;
	/** Where a dragged item would land over this one, or null. */
	side: 'before' | 'after' | null;
}

/** What each list editor says after a step, by its item's noun. */
const SAY = {
	question: {
		add: editor_question_added,
		retire: editor_question_retired,
		remove: editor_question_retired,
		up: editor_question_moved_up,
		down: editor_question_moved_down
	},
	criterion: {
		add: editor_criterion_added,
		retire: editor_criterion_removed,
		remove: editor_criterion_removed,
		up: editor_criterion_moved_up,
		down: editor_criterion_moved_down
	}
} as const;

/**
 * After an edit step run in the browser (`add`, `up:i`, `down:i`, `retire:i` or `remove:i`) on a list
 * editor whose fields are named `<prefix>.<i>.<field>`: what to announce, and the keyboard kept where
 * the admin was (on the moved item's same button, or the new item's label). `noun` names an item
 * (`question` or `criterion`); `before` and `after` are the counts around the step; `full` is said when an add found the list full.
 */
export function afterStep(
	form: HTMLFormElement,
	{
		prefix,
		noun,
		op,
		before,
		after,
		full
	}: { prefix: string; noun: keyof typeof SAY; op: string; before: number; after: number; full: string }
): string {
	const [verb, at] = op.split(':');
	const n = Number(at) + 1;
	const focusAt = verb === 'up' ? n - 2 : verb === 'down' ? n : verb === 'add' ? after - 1 : -1;
	if (focusAt >= 0)
		requestAnimationFrame(() => {
			const label = `[name="${prefix}.${focusAt}.label"]`;
			const selector = verb === 'add' ? label : `button[value="${verb}:${focusAt}"]`;
			(form.querySelector<HTMLElement>(selector) ?? form.querySelector<HTMLElement>(label))?.focus();
		});
	const say = SAY[noun];
	if (verb === 'add') return after > before ? say.add({ n: after }) : full;
	if (verb === 'retire' || verb === 'remove' || verb === 'up' || verb === 'down') return say[verb]({ n });
	return '';
}
