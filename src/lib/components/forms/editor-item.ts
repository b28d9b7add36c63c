/** Drag and drop of one item of a list editor (EditorItem.svelte), by its handle. */
export interface ItemDrag {
	ondragstart: (event: DragEvent) => void;
	ondragend: () => void;
	dragging: boolean;
	/** Where a dragged item would land over this one, or null. */
	side: 'before' | 'after' | null;
}
