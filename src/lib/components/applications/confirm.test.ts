import { describe, expect, it, vi } from 'vitest';
import type { SubmitFunction } from '@sveltejs/kit';
import { confirmFinal } from './confirm';

type Input = Parameters<SubmitFunction>[0];

/** A submission as use:enhance hands it over: a form that can be submitted again, and cancel(). */
function submission(fields: Record<string, string>, form: { valid?: boolean; resubmit?: () => void } = {}) {
	const formData = new FormData();
	for (const [k, v] of Object.entries(fields)) formData.set(k, v);
	const submitter = { name: 'to' };
	const cancel = vi.fn();
	const requestSubmit = vi.fn(form.resubmit);
	const input = {
		formData,
		submitter,
		cancel,
		formElement: { reportValidity: () => form.valid ?? true, requestSubmit }
	} as unknown as Input;
	return { input, cancel, requestSubmit, submitter, formData };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('confirmFinal: the one confirm step before a final move', () => {
	it('sends a move that needs no confirmation straight on, without confirm=yes', () => {
		const then = vi.fn();
		const submit = confirmFinal(() => null, then);
		const one = submission({ to: 'needs_info' });
		void submit(one.input);
		expect(one.cancel).not.toHaveBeenCalled();
		expect(then).toHaveBeenCalledOnce();
		expect(one.formData.get('confirm')).toBeNull();
	});

	it('on Cancel sends nothing, and asks again next time', async () => {
		const then = vi.fn();
		const ask = vi.fn(() => Promise.resolve(false));
		const submit = confirmFinal(ask, then);
		const first = submission({ to: 'rejected' });
		void submit(first.input);
		await settled();
		expect(first.cancel).toHaveBeenCalled();
		expect(first.requestSubmit).not.toHaveBeenCalled();
		void submit(submission({ to: 'rejected' }).input);
		expect(ask).toHaveBeenCalledTimes(2);
		expect(then).not.toHaveBeenCalled();
	});

	it('on Confirm submits the same form with the same button once, with confirm=yes; the next one is asked again', async () => {
		const then = vi.fn();
		const ask = vi.fn(() => Promise.resolve(true));
		const submit = confirmFinal(ask, then);
		const again = submission({ to: 'approved' });
		const first = submission({ to: 'approved' }, { resubmit: () => void submit(again.input) });
		void submit(first.input);
		await settled();
		expect(first.requestSubmit).toHaveBeenCalledWith(first.submitter);
		expect(again.formData.get('confirm')).toBe('yes');
		expect(then).toHaveBeenCalledOnce();
		expect(ask).toHaveBeenCalledOnce();
		void submit(submission({ to: 'approved' }).input);
		expect(ask).toHaveBeenCalledTimes(2);
	});

	it('a form the browser now refuses is not sent after Confirm, and the next submission is asked again', async () => {
		const ask = vi.fn(() => Promise.resolve(true));
		const submit = confirmFinal(ask, vi.fn());
		const first = submission({ to: 'approved' }, { valid: false });
		void submit(first.input);
		await settled();
		expect(first.requestSubmit).not.toHaveBeenCalled();
		void submit(submission({ to: 'approved' }).input);
		expect(ask).toHaveBeenCalledTimes(2);
	});
});
