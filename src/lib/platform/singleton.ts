/**
 * The one way the server holds a value for the whole process: the runtime, shared clients, caches
 * (configuration is not one: it goes down as arguments from runtime()). Values live in this module's
 * storage, never on globalThis, and `resetSingletons()` forgets them all, so a test starts as a fresh process would
 * (tests/helpers/fresh-process.ts does it before every test file). The browser's page-wide wallet
 * and WalletConnect connector stay module variables: a page load starts them fresh, and the wallet
 * chunk is held to a size budget.
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
