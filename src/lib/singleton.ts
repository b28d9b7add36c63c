/**
 * The one way this code holds a value for the whole process (on the server) or the page (in a
 * browser): the runtime, configured endpoints, shared clients, caches. Values live in this module's
 * storage, never on globalThis, and `resetSingletons()` forgets them all, so a test starts as a
 * fresh process would (tests/helpers/fresh-process.ts does it before every test file).
 */
export interface Singleton<T> {
	/** The value; made by `make` on first use and again after a reset. */
	get(): T;
	/** Replaces it (a value set at start-up, e.g. from the configuration; a test's own). */
	set<V extends T>(value: V): V;
}

const values = new Map<string, { value: unknown }>();

/** The value named `name` (one name, one value: give each a name no other module uses). */
export function singleton<T>(name: string, make: () => T): Singleton<T> {
	return {
		get() {
			let held = values.get(name);
			if (!held) {
				held = { value: make() };
				values.set(name, held);
			}
			return held.value as T;
		},
		set(value) {
			values.set(name, { value });
			return value;
		}
	};
}

/** Forgets every value: the next `get()` of each makes it again. For tests. */
export function resetSingletons(): void {
	values.clear();
}
