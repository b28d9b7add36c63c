import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

// Debian's Chromium where it is installed (Playwright cannot download its own browser here).
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export default defineConfig({
	testDir: 'tests/e2e',
	// The specs run build/index.js: stop at once on a missing or stale build.
	globalSetup: './tests/helpers/require-current-build.ts',
	outputDir: 'test-results',
	timeout: 60_000,
	workers: 1,
	reporter: process.env.CI ? 'list' : 'list',
	use: {
		browserName: 'chromium',
		trace: 'retain-on-failure',
		launchOptions: {
			executablePath: systemChromium,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync'
			]
		}
	}
});
