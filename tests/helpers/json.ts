// JSON read with the type the test expects: the assertions that follow check the shape.

/** Parses `text` as JSON of type T. */
export function parseJson<T>(text: string): T {
	return JSON.parse(text) as T;
}

/** Reads a response body as JSON of type T. */
export async function readJson<T>(response: Response): Promise<T> {
	return (await response.json()) as T;
}
