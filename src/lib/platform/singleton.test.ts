import { describe, expect, it } from 'vitest';
import { resetSingletons, singleton } from './singleton';

describe('process-wide values (one helper, resettable)', () => {
	it('makes a value once, on first use, and serves it to every later get', () => {
		let made = 0;
		const held = singleton('singleton.test once', () => ({ n: ++made }));
		expect(made).toBe(0);
		const first = held.get();
		expect(held.get()).toBe(first);
		expect(singleton('singleton.test once', () => ({ n: -1 })).get()).toBe(first);
		expect(made).toBe(1);
	});

	it('keeps a value set at start-up instead of making one', () => {
		const endpoints = singleton<string[]>('singleton.test set', () => []);
		endpoints.set(['https://hooks.example/in']);
		expect(endpoints.get()).toEqual(['https://hooks.example/in']);
	});

	it('forgets every value on reset, so a test starts as a fresh process would', () => {
		const counter = singleton('singleton.test reset', () => ({ n: 0 }));
		const configured = singleton<string | null>('singleton.test reset set', () => null);
		counter.get().n = 5;
		configured.set('http://127.0.0.1:8545');
		resetSingletons();
		expect(counter.get()).toEqual({ n: 0 });
		expect(configured.get()).toBeNull();
	});
});
