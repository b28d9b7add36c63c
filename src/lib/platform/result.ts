/**
 * The one shape of an answer, on the server and in the browser (docs/decisions/0026-one-outcome.md):
 * `{ ok: true, value }`, or a failure with a `code` that code decides by and a `message` for people.
 * A failure may carry more (a status, a wait, the counts); it never needs a thrown error to travel.
 * The server's `Outcome` (src/lib/server/platform/outcome.ts) is this with an HTTP status.
 */
export type Result<T, F extends Failed = Failed> = Ok<T> | F;

export interface Ok<T> {
	ok: true;
	value: T;
}

export interface Failed<C extends string = string> {
	ok: false;
	code: C;
	message: string;
}

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
