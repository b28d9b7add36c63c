import { moveInputProblems } from '$lib/applications/move-inputs';
import { FIELDS, type Field } from '$lib/applications/transitions';

type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
const control = (form: HTMLFormElement, name: string): Control | null => {
	const el = form.elements.namedItem(name);
	return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement
		? el
		: null;
};

/**
 * use:checkMoveInputs on a move form: the browser's own checks of the move a button is about to
 * send (its reason, its tx hash's shape, a bulk's selection), set as the fields' validity messages
 * when the button is pressed. A click (a key press on a button, or Enter in a text field, is one)
 * comes before the browser validates the form, so a refused input never reaches the submit event:
 * no confirm dialog opens, and the browser focuses the field and reads its message. The server still
 * checks everything. The form reads `field` from a field and `to` from the button or a field.
 */
export function checkMoveInputs(form: HTMLFormElement) {
	const check = (event: MouseEvent) => {
		const button = event.target instanceof Element ? event.target.closest('button') : null;
		if (!button || button.type !== 'submit' || button.form !== form) return;
		const field = control(form, 'field')?.value;
		const to = button.name === 'to' ? button.value : (control(form, 'to')?.value ?? '');
		if (!(FIELDS as readonly unknown[]).includes(field)) return;
		const reason = control(form, 'reason');
		const txHash = control(form, 'txHash');
		const problems = moveInputProblems(field as Field, to, { reason: reason?.value, txHash: txHash?.value });
		reason?.setCustomValidity(problems.reason ?? '');
		txHash?.setCustomValidity(problems.txHash ?? '');
		// A bulk move names its applications by the rows' checkboxes: at least one must be ticked.
		const rows = [...form.querySelectorAll<HTMLInputElement>('input[type="checkbox"][name="applicationIds"]')];
		if (rows.length) {
			const none = rows.every((row) => !row.checked);
			for (const row of rows) row.setCustomValidity('');
			rows[0]!.setCustomValidity(none ? 'Select at least one application.' : '');
		}
	};
	// Typing or ticking clears a field's message; the next press checks again.
	const clear = (event: Event) => {
		const target = event.target;
		if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) target.setCustomValidity('');
		if (target instanceof HTMLInputElement && target.name === 'applicationIds')
			form.querySelector<HTMLInputElement>('input[name="applicationIds"]')?.setCustomValidity('');
	};
	form.addEventListener('click', check, true);
	form.addEventListener('input', clear);
	form.addEventListener('change', clear);
	return {
		destroy() {
			form.removeEventListener('click', check, true);
			form.removeEventListener('input', clear);
			form.removeEventListener('change', clear);
		}
	};
}
