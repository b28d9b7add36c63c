// @ts-check
// Debian's Chromium, which the end-to-end tests (playwright.config.ts) and the Lighthouse benchmark
// (bench/lighthouse/scenario.js) drive: Playwright cannot download its own browser here.
import { existsSync } from 'node:fs';

/** The system Chromium, or undefined where none is installed. */
export const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/**
 * The browser the end-to-end tests drive: Debian's headless shell (package chromium-headless-shell, the
 * same Blink and the build Playwright itself runs headless by default) where installed, else the full
 * Chromium. On the 2-core machine the shell spent about two thirds of the full browser's CPU on the same
 * spec file (bench/README.md, CI time).
 */
export const TEST_CHROMIUM = ['/usr/bin/chromium-headless-shell'].find((p) => existsSync(p)) ?? SYSTEM_CHROMIUM;

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
