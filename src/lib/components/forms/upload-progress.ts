import type { ActionResult, SubmitFunction } from '@sveltejs/kit';
import { applyAction, deserialize } from '$app/forms';
import { invalidateAll } from '$app/navigation';
import { focusFirstInvalid } from '../controls/enhance';

/**
 * use:enhance for a form that carries files (issue 58): the post goes by XMLHttpRequest, whose upload
 * events give the progress (fetch has none), then the answer is applied as enhance would apply it.
 * A form without a chosen file goes the ordinary way (`otherwise`). Without JavaScript the browser
 * posts the same multipart form itself. `confirm` is told where a successful post redirects (/apply shows its
 * confirmation; /admin/settings goes there, its fields kept: `reset` false). UploadProgress.svelte shows `progress`.
 */
export const uploadWithProgress =
	(
		progress: (percent: number | null) => void,
		confirm: (location: string) => void | Promise<void>,
		otherwise: SubmitFunction,
		{ reset = true }: { reset?: boolean } = {}
	): SubmitFunction =>
	(input) => {
		const { formElement, formData, action, cancel } = input;
		const hasFile = [...formData.values()].some((v) => v instanceof File && v.size > 0);
		if (!hasFile) return otherwise(input);
		cancel();
		const xhr = new XMLHttpRequest();
		xhr.open('POST', action.href);
		xhr.setRequestHeader('accept', 'application/json');
		xhr.setRequestHeader('x-sveltekit-action', 'true');
		xhr.upload.onprogress = (e) => progress(e.lengthComputable ? Math.round((e.loaded * 100) / e.total) : null);
		progress(0);
		const finish = async (result: ActionResult) => {
			progress(null);
			if (result.type === 'redirect') {
				// A form that stays on the page (reset false: /admin/settings, whose fields show what is saved)
				// only lets go of its chosen files, so the next save does not send them again.
				if (reset) formElement.reset();
				else for (const file of formElement.querySelectorAll<HTMLInputElement>('input[type="file"]')) file.value = '';
				await confirm(result.location);
				await invalidateAll();
				return;
			}
			await applyAction(result);
			if (result.type === 'failure') await focusFirstInvalid(formElement);
		};
		xhr.onload = () => {
			let result: ActionResult;
			try {
				result = deserialize(xhr.responseText);
			} catch {
				// Not an action's answer (a 413 or 503 before the action ran): its message, on the error page.
				let message = xhr.statusText;
				try {
					message = (JSON.parse(xhr.responseText) as { message?: string }).message ?? message;
				} catch {
					/* plain text */
				}
				result = { type: 'error', status: xhr.status, error: { message } };
			}
			void finish(result);
		};
		xhr.onerror = () =>
			void finish({ type: 'error', status: 0, error: { message: xhr.statusText || 'Network error' } });
		xhr.send(formData);
	};
