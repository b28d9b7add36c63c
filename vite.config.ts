import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	plugins: [sveltekit()],
	test: {
		environment: 'node',
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: 'forks',
		// A test that asserts nothing cannot fail.
		expect: { requireAssertions: true },
		projects: [
			// Pure functions, next to the module they test: no database, no server, no network.
			{ extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
			// In-process against a real database (PGlite; the Postgres server too with TEST_DATABASE_URL).
			{ extends: true, test: { name: 'integration', include: ['tests/integration/**/*.test.ts'] } },
			// The built server (build/index.js) over real HTTP: refuses to start on a missing or stale build.
			{
				extends: true,
				test: {
					name: 'http',
					include: ['tests/http/**/*.test.ts'],
					globalSetup: ['tests/helpers/require-current-build.ts']
				}
			}
		]
	}
});
