import { isUtf8 } from 'node:buffer';
import { error, fail, isHttpError, type ActionFailure } from '@sveltejs/kit';
import * as v from 'valibot';
import { invalid, type Failure, type FieldErrors } from './outcome';
import { m } from '$lib/paraglide/messages';

/** A refused action: the page is rendered with the refusal's status; a 429 also says Retry-After. */
export function refuse<T extends Record<string, unknown>>(
	setHeaders: (headers: Record<string, string>) => void,
	failure: Failure,
	data: T
): ActionFailure<Failure & T> {
	if (failure.status === 429) setHeaders({ 'retry-after': String(failure.retryAfterSeconds) });
	return fail(failure.status, { ...failure, ...data });
}

/**
 * A file part a streaming reader took instead of a File (server/files/receive.ts): its bytes went to the
 * store as they arrived, never into memory; it says only what became of them. Never text.
 */
export interface StreamedFile {
	readonly streamed: true;
	/** The name the client sent. */
	readonly name: string;
}

/** A form's value: text, a File (readForm), or a file part streamed to the store. */
export type FormValue = FormDataEntryValue | StreamedFile;

/** Most entries (name=value pairs) one form post may carry: the largest real form (50 questions of up to 20 options) sends about 1,000. */
export const MAX_FORM_FIELDS = 2000;

/**
 * A form as read once: every entry in the order sent, and each name's values in a Map, so that any
 * number of lookups costs one pass over the body (never a walk of every field per name). FormData's
 * reading methods, so the editors' readers take either; `prefixed()` collects `answers.*`, `score.*`,
 * `ask.*` and the like in the same pass.
 */
export class FormFields<V extends FormValue = FormDataEntryValue> {
	readonly #entries: [string, V][] = [];
	readonly #byName = new Map<string, V[]>();

	constructor(entries: Iterable<[string, NoInfer<V>]>) {
		for (const entry of entries) {
			this.#entries.push(entry);
			const values = this.#byName.get(entry[0]);
			if (values) values.push(entry[1]);
			else this.#byName.set(entry[0], [entry[1]]);
		}
	}

	/** How many entries the form carried. */
	get size(): number {
		return this.#entries.length;
	}
	getAll(name: string): V[] {
		return [...(this.#byName.get(name) ?? [])];
	}
	get(name: string): V | null {
		return this.#byName.get(name)?.[0] ?? null;
	}
	has(name: string): boolean {
		return this.#byName.has(name);
	}
	/** Each distinct name once, in the order first sent. */
	keys(): IterableIterator<string> {
		return this.#byName.keys();
	}
	entries(): IterableIterator<[string, V]> {
		return this.#entries[Symbol.iterator]();
	}
	[Symbol.iterator](): IterableIterator<[string, V]> {
		return this.entries();
	}

	/**
	 * Every field whose name starts with `prefix` (`answers.`, `score.`, `ask.`), full name → value as
	 * `formInput` gives it, in an object without a prototype so no name reaches Object's own properties.
	 */
	prefixed(prefix: string): Record<string, unknown> {
		const sent = Object.create(null) as Record<string, unknown>;
		for (const [name, values] of this.#byName) if (name.startsWith(prefix)) sent[name] = oneOrMany(values);
		return sent;
	}
}

const oneOrMany = (values: readonly FormValue[]) =>
	values.length === 0 ? undefined : values.length === 1 ? values[0] : [...values];

/** The 400 of a body that is not a readable form. */
export const unreadable = (): never => error(400, { code: 'invalid_request', message: m.form_unreadable() });

/** The 413 of a form of more than MAX_FORM_FIELDS entries. */
export const tooManyFields = (): never =>
	error(413, { code: 'too_many_fields', message: m.form_too_many_fields({ max: MAX_FORM_FIELDS }) });

/**
 * The body of a form action, read once into FormFields. One that is not a readable form (malformed or
 * truncated multipart, text/plain, bytes) is a 400, never a 500 (docs/pages-and-forms.md "Status
 * codes"); an over-large one keeps its 413; one of more than MAX_FORM_FIELDS entries is a 413
 * `too_many_fields`, counted on the raw bytes before anything parses them, so no body under the
 * size limit costs more than one linear scan before the action's rate limit.
 */
export async function readForm(request: Request): Promise<FormFields> {
	const type = request.headers.get('content-type') ?? '';
	let bytes: ArrayBuffer;
	try {
		bytes = await request.arrayBuffer();
	} catch (err) {
		if (isHttpError(err)) throw err;
		return unreadable();
	}
	const body = Buffer.from(bytes);
	if (entriesAtMost(body, type) > MAX_FORM_FIELDS) tooManyFields();
	// The parser would turn bytes that are not UTF-8 into U+FFFD and let them through as text.
	if (!isUtf8Form(body, type)) return unreadable();
	// A URL-encoded body is read as the Fetch standard reads it (the UTF-8 text, a byte-order mark kept, by
	// URLSearchParams), without a second Request around it: every form post of the portal is one.
	if (mediaOf(type) === 'application/x-www-form-urlencoded')
		return new FormFields(new URLSearchParams(body.toString('utf8')).entries());
	try {
		const form = await new Request('http://form.invalid/', {
			method: 'POST',
			body: bytes,
			headers: { 'content-type': type }
		}).formData();
		return new FormFields(form.entries());
	} catch {
		return unreadable();
	}
}

/** The media type of a Content-Type, lowercase, without its parameters. */
const mediaOf = (type: string) => type.split(';', 1)[0]!.trim().toLowerCase();

/**
 * Whether the form's text is UTF-8 as a browser sends it: a multipart body's bytes, or a URL-encoded
 * body's bytes once its %XX escapes are read (a stray `%` stays itself, as the parser leaves it). Linear.
 */
function isUtf8Form(body: Buffer, type: string): boolean {
	const media = mediaOf(type);
	if (media === 'multipart/form-data') return isUtf8Multipart(body, type);
	if (media !== 'application/x-www-form-urlencoded') return isUtf8(body);
	const unescaped = body
		.toString('latin1')
		.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
	return isUtf8(Buffer.from(unescaped, 'latin1'));
}

/**
 * A multipart body's text as UTF-8: every part's headers, and the contents of each part that is not a
 * file (a file's bytes are whatever they are: server/files tells their type). One pass of indexOf.
 */
function isUtf8Multipart(body: Buffer, type: string): boolean {
	const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(type);
	if (!boundary) return isUtf8(body);
	const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
	let at = body.indexOf(delimiter);
	while (at !== -1) {
		const start = at + delimiter.length;
		const next = body.indexOf(delimiter, start);
		const part = body.subarray(start, next === -1 ? body.length : next);
		const headersEnd = part.indexOf('\r\n\r\n');
		const headers = headersEnd === -1 ? part : part.subarray(0, headersEnd);
		if (!isUtf8(headers)) return false;
		const isFile = /;\s*filename\*?=/i.test(headers.toString('utf8'));
		if (!isFile && headersEnd !== -1 && !isUtf8(part.subarray(headersEnd + 4))) return false;
		at = next;
	}
	return true;
}

/** An upper bound on the entries in a body: `&`s + 1 when URL-encoded, boundary lines when multipart (0 otherwise: the parser refuses it). */
function entriesAtMost(body: Buffer, type: string): number {
	const media = mediaOf(type);
	if (media === 'application/x-www-form-urlencoded') return count(body, '&') + 1;
	if (media !== 'multipart/form-data') return 0;
	const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(type);
	return boundary ? count(body, `--${boundary[1] ?? boundary[2]}`) : 0;
}

/** Occurrences of `needle` in `body` by the native search, counted only until there are too many. */
function count(body: Buffer, needle: string): number {
	let n = 0;
	for (let at = body.indexOf(needle); at !== -1 && n <= MAX_FORM_FIELDS; at = body.indexOf(needle, at + needle.length))
		n++;
	return n;
}

/**
 * The named fields of a form, as sent: a string, a File, several values (an array) or undefined.
 * Validation then refuses anything that is not exactly one piece of text. One Map lookup per name.
 */
export function formInput(form: FormFields<FormValue>, names: readonly string[]): Record<string, unknown> {
	const input: Record<string, unknown> = {};
	for (const name of names) input[name] = oneOrMany(form.getAll(name));
	return input;
}

/** The text values a user typed, to put back into the form after a refusal. */
export function typedValues(input: Record<string, unknown>): Record<string, string> {
	const values: Record<string, string> = {};
	for (const [name, value] of Object.entries(input)) if (typeof value === 'string') values[name] = value;
	return values;
}

export { charCount, textField } from './text-field';

/** Runs `schema` over `input`: the typed output, or a 400 with the first message for each field. */
export function validate<S extends v.GenericSchema>(
	schema: S,
	input: unknown
): { ok: true; value: v.InferOutput<S> } | Extract<Failure, { status: 400 }> {
	const result = v.safeParse(schema, input, { abortPipeEarly: true });
	if (result.success) return { ok: true, value: result.output };
	const errors: FieldErrors = {};
	for (const issue of result.issues) {
		const key = issue.path?.map((p) => String(p.key)).join('.') ?? '';
		if (key && !(key in errors)) errors[key] = issue.message;
	}
	return invalid(errors);
}
