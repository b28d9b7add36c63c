import type { SubmitFunction } from '@sveltejs/kit';

/**
 * use:enhance that also clears the form after a success: actions answer a success with a 303 back
 * to the page, which the default enhance follows without resetting what was typed.
 */
export const clearAfterSuccess: SubmitFunction =
	() =>
	async ({ result, formElement, update }) => {
		if (result.type === 'redirect') formElement.reset();
		await update();
	};

/** clearAfterSuccess, and `confirm` is called so the page can say the submission was received. */
export const confirmAfterSuccess =
	(confirm: () => void): SubmitFunction =>
	() =>
	async ({ result, formElement, update }) => {
		if (result.type === 'redirect') {
			formElement.reset();
			confirm();
		}
		await update();
	};
