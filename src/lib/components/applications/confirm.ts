import type { SubmitFunction } from '@sveltejs/kit';

/**
 * The one confirm step of the admin forms with JavaScript (decision 0016): a final move is not sent
 * until the admin confirms it. `ask` looks at what is about to be sent and returns null when no
 * confirmation is needed, or the dialog's answer. On Confirm the same form is submitted again with
 * the same button and `confirm=yes`, which the server needs before it applies a final move; on
 * Cancel nothing is sent. Everything else is `then`'s (the page's own after-submit handling).
 */
export function confirmFinal(
	ask: (formData: FormData) => Promise<boolean> | null,
	then: SubmitFunction
): SubmitFunction {
	// Set only between Confirm and the submission it starts, so no later submission skips the question.
	let confirmed = false;
	return (input) => {
		if (confirmed) {
			confirmed = false;
			input.formData.set('confirm', 'yes');
			return then(input);
		}
		const answer = ask(input.formData);
		if (!answer) return then(input);
		input.cancel();
		void answer.then((ok) => {
			// A form that would no longer pass the browser's checks is not sent (and the flag not left set).
			if (!ok || !input.formElement.reportValidity()) return;
			confirmed = true;
			input.formElement.requestSubmit(input.submitter);
		});
	};
}
