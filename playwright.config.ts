import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, SYSTEM_CHROMIUM } from './scripts/chromium.js';

export default defineConfig({
	testDir: 'tests/e2e',
	// The specs run build/index.js: stop at once on a missing or stale build.
	globalSetup: './tests/helpers/require-current-build.ts',
	outputDir: 'test-results',
	// Long journeys (many pages, screenshots, axe) passed 60 s on a loaded 2-core CI run; a stuck test still ends.
	timeout: 120_000,
	workers: 1,
	reporter: process.env.CI ? 'list' : 'list',
	use: {
		browserName: 'chromium',
		trace: 'retain-on-failure',
		launchOptions: {
			executablePath: SYSTEM_CHROMIUM,
			args: CHROMIUM_FLAGS
		}
	}
});
