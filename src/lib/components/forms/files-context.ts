import { getContext, setContext } from 'svelte';

/** A stored file as a page lists it (server/files `StoredFile`): a `file` answer holds these ids. */
export interface FileEntry {
	id: string;
	name: string;
	contentType: string;
	bytes: number;
}

const KEY = Symbol('files');

/**
 * The files of the applications a page shows, by id, for every AnswerValue under it (the page sets them
 * once; AsSubmitted, AnswerList and the revisions need no prop for them). `preview`: images and PDFs
 * shown too, in a sandbox (/review/[id], the admin's "As submitted").
 */
export function setFiles(files: () => { byId: Record<string, FileEntry>; preview: boolean }): void {
	setContext(KEY, files);
}

export function filesInContext(): { byId: Record<string, FileEntry>; preview: boolean } {
	const get = getContext<(() => { byId: Record<string, FileEntry>; preview: boolean }) | undefined>(KEY);
	return get?.() ?? { byId: {}, preview: false };
}
