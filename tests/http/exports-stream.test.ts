import { readFileSync } from 'node:fs';
import http from 'node:http';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';

// About 1 KiB of CSV a row, some 60 MiB in all: more than loopback's socket buffers hold, so the server is still
// reading when the client stops, and enough that a server holding its rows grows far past GROWTH_MIB.
const APPLICATIONS = 60_000;
/** A client on a slow link: MiB/s it takes, in bursts, with half a second of not reading every 2 s. */
const SLOW_RATE = 8 * 1024 * 1024;
/**
 * Most a whole download may grow the server's RSS by (issue 60: a download's memory does not depend on its
 * rows). Measured on 2026-12-06: 12 to 25 MiB, the young generation and the buffers, over 20 and 60 MiB of
 * CSV and over 150,000 rows; 108 to 137 MiB with the export before 2ba444b6, which kept the driver's rows
 * until a full collection. The bound was 24 MiB over 20 MiB of CSV, which a passing server crossed in CI.
 */
const GROWTH_MIB = 40;

/** The kernel's resident size of process `pid`, in MiB. */
const rssOf = (pid: number) =>
	Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Reads `url` as a client on a slow link does; resolves with the lines it got. */
function readSlowly(url: string, cookie: string): Promise<number> {
	return new Promise((resolve, reject) => {
		http
			.get(url, { headers: { cookie } }, (res) => {
				const started = performance.now();
				let reading = 0; // ms the bytes so far take at SLOW_RATE
				let lines = 0;
				res.on('data', (chunk: Buffer) => {
					for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
					reading += (chunk.length / SLOW_RATE) * 1000;
					const wait = started + reading + Math.floor(reading / 2000) * 500 - performance.now();
					if (wait > 5) {
						res.pause();
						setTimeout(() => res.resume(), wait);
					}
				});
				res.on('end', () => resolve(lines));
				res.on('error', reject);
			})
			.on('error', reject);
	});
}

// The built server on the Postgres server: a download larger than the socket's buffers, read or abandoned.
describe.runIf(serverUrl)('applications.csv streamed from the Postgres server, through HTTP', () => {
	const admin = privateKeyToAccount(generatePrivateKey());
	let database: ServerDatabase;
	let sql: postgres.Sql;
	let server: RunningServer;
	let cookie: string;

	beforeAll(async () => {
		database = await createServerDatabase(requireServerUrl());
		sql = postgres(database.url, { max: 1, onnotice: () => {} });
		await sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, ${APPLICATIONS}::int) g`;
		await sql`insert into applications (applicant_address, display_name, contact, motivation, review)
			select '0x' || lpad(to_hex(g), 40, '0'), 'Person ' || g || repeat(' with a long name', 3), repeat('@handle', 25), repeat('Seeds and roots. ', 40),
				(case when g % 3 = 0 then 'approved' else 'pending' end)::review_state
			from generate_series(1, ${APPLICATIONS}::int) g`;
		server = await startServer({ env: { DATABASE_URL: database.url, ADMIN_ADDRESSES: admin.address } });
		cookie = await signIn(server.url, admin);
	}, 120_000);
	afterAll(async () => {
		await server?.stop();
		await sql?.end();
		await database?.drop();
	});

	const openTransactions = async () => {
		const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
			where datname = current_database() and application_name = 'member-portal' and xact_start is not null`;
		return row!.n;
	};

	// Runs first, on the fresh server: the outside check of issue 60, at a size CI affords.
	it('holds its memory whatever the rows, for a client slower than the database', async () => {
		const pid = server.process.pid!;
		// The warm-up: an export of one row.
		const one = await fetch(`${server.url}/admin/applications.csv?q=0x${'1'.padStart(40, '0')}`, {
			headers: { cookie }
		});
		expect((await one.text()).split('\r\n')).toHaveLength(3);
		await new Promise((r) => setTimeout(r, 500));
		const before = rssOf(pid);
		let peak = before;
		const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
		try {
			expect(await readSlowly(`${server.url}/admin/applications.csv`, cookie)).toBe(APPLICATIONS + 1);
		} finally {
			clearInterval(sampler);
		}
		expect(peak - before, `RSS growth in MiB, from ${before.toFixed(0)} MiB before the download`).toBeLessThanOrEqual(
			GROWTH_MIB
		);
	}, 120_000);

	it('gives the snapshot back when the admin cancels half-way, and the next download has every row', async () => {
		const abort = new AbortController();
		const response = await fetch(`${server.url}/admin/applications.csv`, { headers: { cookie }, signal: abort.signal });
		expect(response.status).toBe(200);
		const reader = response.body!.getReader();
		await reader.read();
		// The server holds its snapshot while the client reads.
		expect(await openTransactions()).toBe(1);
		abort.abort();
		await reader.cancel().catch(() => {});
		const deadline = Date.now() + 10_000;
		while ((await openTransactions()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
		expect(await openTransactions()).toBe(0);

		const full = await fetch(`${server.url}/admin/applications.csv?review=approved`, { headers: { cookie } });
		const lines = (await full.text()).split('\r\n');
		expect(lines.at(-1)).toBe('');
		expect(lines).toHaveLength(APPLICATIONS / 3 + 2);
		expect(new Set(lines.slice(1, -1).map((l) => l.slice(1, 37))).size).toBe(APPLICATIONS / 3);
		expect(await openTransactions()).toBe(0);
	}, 120_000);

	it('answers HEAD with the download headers without reading a row', async () => {
		const head = await fetch(`${server.url}/admin/applications.csv`, { method: 'HEAD', headers: { cookie } });
		expect(head.status).toBe(200);
		expect(head.headers.get('content-type')).toMatch(/^text\/csv/);
		expect(head.headers.get('content-disposition')).toMatch(/^attachment; filename="applications-/);
		expect(await openTransactions()).toBe(0);
	});
});
