import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, TEST_CHROMIUM } from './scripts/chromium.js';

export default defineConfig({
	testDir: 'tests/e2e',
	// The specs run build/index.js: stop at once on a missing or stale build.
	globalSetup: './tests/helpers/require-current-build.ts',
	outputDir: 'test-results',
	// Long journeys (many pages, screenshots, axe) passed 60 s on a loaded 2-core CI run; a stuck test still ends.
	timeout: 120_000,
	// Spec files side by side, each with its own server on its own database (fixtures.ts, startPortal). With one
	// worker about one core of the two was busy: its specs cost about 820 CPU seconds measured file by file (test
	// process, server and Chromium; 201 tests in 36 files, 2026-12-05), while CI's e2e part took 624-960 s of wall
	// time (bench/README.md, CI time). With two the CPU was still idle 8-20 % of the e2e phase (vmstat in CI,
	// 2026-12-05): three. E2E_WORKERS=1 runs them one at a time.
	workers: Number(process.env.E2E_WORKERS ?? 3),
	// In CI a test that timed out on the shared cores runs once more, and the report names it flaky; a real
	// failure fails twice.
	retries: process.env.CI ? 1 : 0,
	reporter: process.env.CI ? 'list' : 'list',
	use: {
		browserName: 'chromium',
		// A click or a wait that cannot happen fails on its own line instead of using up the test's 120 s, so the
		// report names the step (CI of stop 75: a test timed out with no line named).
		actionTimeout: 30_000,
		navigationTimeout: 60_000,
		// In CI the trace is recorded on the retry only: recording every test (screencast and snapshots)
		// cost about a third of the suite's CPU (bench/README.md, CI time); a real failure fails twice and
		// leaves its trace. Locally, the trace of every failure.
		trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
		launchOptions: {
			executablePath: TEST_CHROMIUM,
			args: CHROMIUM_FLAGS
		}
	}
});
