import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { startServer, TEST_SESSION_PASSWORD, type RunningServer } from '../helpers/server';
import { proxyFor } from '../helpers/tcp-proxy';

const servers: RunningServer[] = [];
afterAll(async () => {
	await Promise.all(servers.map((s) => s.stop()));
});
async function start(...args: Parameters<typeof startServer>) {
	const server = await startServer(...args);
	servers.push(server);
	return server;
}

async function get(url: string) {
	const started = Date.now();
	const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
	return { status: response.status, body: await response.text(), ms: Date.now() - started, headers: response.headers };
}

describe('the built server', () => {
	it('exits non-zero on a bad configuration, naming every bad variable and printing no secret', async () => {
		const secret = 'too-short-secret';
		const server = await start({
			env: { SESSION_PASSWORD: secret, SIWE_ALLOWED_DOMAINS: 'https://portal.example', ADMIN_ADDRESSES: '0xnope' }
		});
		expect(await server.exited).not.toBe(0);
		const output = server.output();
		expect(output).toContain('SESSION_PASSWORD');
		expect(output).toContain('SIWE_ALLOWED_DOMAINS');
		expect(output).toContain('ADMIN_ADDRESSES');
		expect(output).not.toContain(secret);
		expect(output).not.toMatch(/Listening on/);
	});

	it('validates the PUBLIC_ variables the browser reads with the rest: a malformed WalletConnect id stops it', async () => {
		const server = await start({ env: { PUBLIC_WALLETCONNECT_PROJECT_ID: 'not-a-project-id' } });
		expect(await server.exited).not.toBe(0);
		expect(server.output()).toContain(
			'PUBLIC_WALLETCONNECT_PROJECT_ID: must be a WalletConnect Cloud project id: 32 lowercase hex digits'
		);
		expect(server.output()).not.toMatch(/Listening on/);
	});

	it('with a good configuration serves /healthz and the static pages on PGlite', async () => {
		const server = await start();
		expect(await get(`${server.url}/healthz`)).toMatchObject({
			status: 200,
			body: '{"status":"ok","lastBackupAt":null}'
		});
		for (const page of ['/', '/setup']) expect((await get(server.url + page)).status).toBe(200);
		expect((await get(`${server.url}/no-such-page`)).status).toBe(404);
	});

	it('the launcher behind `npm start` generates one session secret, mode 600, and keeps it', async () => {
		const dataDir = mkdtempSync(path.join(tmpdir(), 'portal-start-'));
		const env = {
			PORTAL_DATA_DIR: dataDir,
			SESSION_PASSWORD: undefined,
			SIWE_ALLOWED_DOMAINS: undefined,
			PGLITE_DATA_DIR: undefined,
			ORIGIN: undefined
		};
		const first = await start({ entry: 'scripts/start.js', env });
		expect((await get(`${first.url}/healthz`)).status).toBe(200);
		expect((await get(`${first.url}/`)).status).toBe(200);
		const file = path.join(dataDir, 'session-password');
		expect(statSync(file).mode & 0o777).toBe(0o600);
		const secret = readFileSync(file, 'utf8').trim();
		expect(secret.length).toBeGreaterThanOrEqual(32);
		expect(first.output()).not.toContain(secret);
		await first.stop();
		const second = await start({ entry: 'scripts/start.js', env });
		expect((await get(`${second.url}/healthz`)).status).toBe(200);
		expect(readFileSync(file, 'utf8').trim()).toBe(secret);
		expect(statSync(path.join(dataDir, 'pglite')).isDirectory()).toBe(true);
		// Two cold starts, the first creating the embedded database: slow on a loaded 2-core machine.
	}, 150_000);
});

describe.runIf(serverUrl)('the built server on a Postgres server', () => {
	const databases: ServerDatabase[] = [];
	afterAll(async () => {
		await Promise.all(servers.map((s) => s.stop()));
		for (const database of databases) await database.drop();
	});
	async function newDatabase(options: { migrate: boolean }): Promise<string> {
		const database = await createServerDatabase(requireServerUrl(), options);
		databases.push(database);
		return database.url;
	}

	it('refuses an unmigrated schema and says to run npm run db:migrate; serves once migrated', async () => {
		const url = await newDatabase({ migrate: false });
		const refused = await start({ env: { DATABASE_URL: url } });
		expect(await refused.exited).not.toBe(0);
		expect(refused.output()).toContain('npm run db:migrate');
		expect(refused.output()).not.toContain(url);

		const migrate = spawnSync(process.execPath, ['scripts/migrate.js'], {
			env: { ...process.env, DATABASE_URL: url },
			encoding: 'utf8'
		});
		expect(migrate.status).toBe(0);
		const server = await start({ env: { DATABASE_URL: url } });
		expect(await get(`${server.url}/healthz`)).toMatchObject({ status: 200 });
	});

	it('survives a database that is away at start and goes away later, answering 503 fast and recovering', async () => {
		const url = await newDatabase({ migrate: true });
		const { proxy, proxiedUrl } = await proxyFor(url);

		const server = await start({ env: { DATABASE_URL: proxiedUrl } });
		expect(server.process.exitCode).toBeNull();

		const away = await get(`${server.url}/healthz`);
		expect(away.status).toBe(503);
		expect(JSON.parse(away.body)).toMatchObject({ error: { code: 'database_unavailable' } });
		expect(away.ms).toBeLessThan(5_000);
		expect((await get(`${server.url}/`)).status).toBe(200);
		expect((await get(`${server.url}/setup`)).status).toBe(200);

		await proxy.up();
		expect((await get(`${server.url}/healthz`)).status).toBe(200);

		await proxy.down();
		const lost = await get(`${server.url}/healthz`);
		expect(lost.status).toBe(503);
		expect(lost.ms).toBeLessThan(5_000);
		expect((await get(`${server.url}/`)).status).toBe(200);
		expect(server.process.exitCode).toBeNull();

		await proxy.up();
		let back = await get(`${server.url}/healthz`);
		for (let i = 0; i < 10 && back.status !== 200; i++) back = await get(`${server.url}/healthz`);
		expect(back.status).toBe(200);
		await proxy.down();
		expect(server.output()).not.toContain(TEST_SESSION_PASSWORD);
	});
});
