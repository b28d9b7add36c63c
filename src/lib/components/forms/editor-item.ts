/** Drag and drop of one item of a list editor (EditorItem.svelte), by its handle. */
export interface ItemDrag {
	ondragstart: (event: DragEvent) => void;
	ondragend: () => void;
	dragging: boolean;
	/** Where a dragged item would land over this one, or null. */
	side: 'before' | 'after' | null;
}

/**
 * After an edit step run in the browser (`add`, `up:i`, `down:i`, `retire:i` or `remove:i`) on a list
 * editor whose fields are named `<prefix>.<i>.<field>`: what to announce, and the keyboard kept where
 * the admin was (on the moved item's same button, or the new item's label). `noun` names an item
 * ("Question"); `before` and `after` are the counts around the step; `full` is said when an add found the list full.
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
	}: { prefix: string; noun: string; op: string; before: number; after: number; full: string }
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
	if (verb === 'add') return after > before ? `${noun} ${after} added.` : full;
	if (verb === 'retire') return `${noun} ${n} retired.`;
	if (verb === 'remove') return `${noun} ${n} removed.`;
	return `${noun} ${n} moved ${verb}.`;
}
