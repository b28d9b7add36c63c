import { expect, type Page, type TestInfo } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { startServer, type RunningServer } from '../helpers/server';
import { testAccount } from '../helpers/siwe';

export const TOKEN = {
	PUBLIC_TOKEN_ADDRESS: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
	PUBLIC_TOKEN_SYMBOL: 'MEMBR',
	PUBLIC_TOKEN_DECIMALS: '18',
	PUBLIC_TOKEN_IMAGE: 'https://example.org/membr.png'
};

export const member = testAccount('member');
export const admin = testAccount('admin');
export const other = testAccount('other');

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** Full-page screenshots at phone and desktop width, kept under test-results/<test>/. */
export async function screenshots(page: Page, testInfo: TestInfo, name: string): Promise<void> {
	const before = page.viewportSize();
	for (const [label, size] of [
		['phone', PHONE],
		['desktop', DESKTOP]
	] as const) {
		await page.setViewportSize(size);
		const file = testInfo.outputPath(`${name}-${label}.png`);
		await page.screenshot({ path: file, fullPage: true });
		// Nothing may overflow sideways at either width.
		const overflow = await page.evaluate(
			() => document.documentElement.scrollWidth - document.documentElement.clientWidth
		);
		expect(overflow, `${name} scrolls sideways at ${label} width`).toBeLessThanOrEqual(0);
	}
	if (before) await page.setViewportSize(before);
}

/** The signed-in address as the server sees it (GET /api/auth/me with the page's cookies). */
export async function serverSession(page: Page): Promise<{ address: string | null; isAdmin: boolean }> {
	return page.evaluate(async () => (await fetch('/api/auth/me', { cache: 'no-store' })).json());
}

export function header(page: Page) {
	return page.getByRole('banner');
}

/** A new database on the TEST_DATABASE_URL server, migrated the way operators do (`npm run db:migrate`). */
async function createMigratedDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
	const name = `portal_e2e_${randomBytes(6).toString('hex')}`;
	const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
	await admin.unsafe(`create database ${name}`);
	await admin.end();
	const url = new URL(serverUrl);
	url.pathname = `/${name}`;
	execFileSync(process.execPath, ['scripts/migrate.js'], {
		env: { PATH: process.env.PATH, DATABASE_URL: url.toString() },
		stdio: 'ignore'
	});
	return {
		url: url.toString(),
		async drop() {
			const a = postgres(serverUrl, { max: 1, onnotice: () => {} });
			await a.unsafe(`drop database if exists ${name} with (force)`);
			await a.end();
		}
	};
}

/**
 * The built server for one spec file: on a fresh migrated Postgres database when TEST_DATABASE_URL
 * is set, else on PGlite in memory.
 */
export async function startPortal(env: Record<string, string> = {}): Promise<RunningServer> {
	const database = process.env.TEST_DATABASE_URL ? await createMigratedDatabase(process.env.TEST_DATABASE_URL) : null;
	const server = await startServer({ env: { ...env, ...(database ? { DATABASE_URL: database.url } : {}) } });
	if (server.process.exitCode !== null) throw new Error(`the server did not start:\n${server.output()}`);
	const stop = server.stop;
	server.stop = async () => {
		await stop();
		await database?.drop();
	};
	return server;
}
