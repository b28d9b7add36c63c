// @ts-check
// Debian's Chromium, which the end-to-end tests (playwright.config.ts) and the Lighthouse benchmark
// (bench/lighthouse/scenario.js) drive: Playwright cannot download its own browser here.
import { existsSync } from 'node:fs';

/** The system Chromium, or undefined where none is installed. */
export const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Flags for a headless run in a container: no sandbox, no GPU, nothing that reaches out to Google. */
export const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync'
];
