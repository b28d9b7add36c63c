import { tick } from 'svelte';
import type { SubmitFunction } from '@sveltejs/kit';

/** A refused form's answer, as every form action returns it (docs/pages-and-forms.md "Status codes"). */
export interface Refusal {
	status: number;
	message?: string;
	errors?: Record<string, string>;
}

/**
 * After an enhanced submission was refused: focus moves to the form's first invalid field, whose
 * message is tied to it by aria-describedby (every field component sets aria-invalid), so a
 * keyboard or screen-reader user lands where the fix is and hears why. A refusal without a field
 * stays in the form's FormAlert, which announces it; focus then stays on the button pressed.
 */
export async function focusFirstInvalid(form: HTMLFormElement): Promise<void> {
	await tick();
	form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}

/**
 * use:enhance that also clears the form after a success: actions answer a success with a 303 back
 * to the page, which the default enhance follows without resetting what was typed. A refusal
 * moves focus to the first invalid field.
 */
export const clearAfterSuccess: SubmitFunction =
	() =>
	async ({ result, formElement, update }) => {
		if (result.type === 'redirect') formElement.reset();
		await update();
		if (result.type === 'failure') await focusFirstInvalid(formElement);
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
		if (result.type === 'failure') await focusFirstInvalid(formElement);
	};
