// A full disk under the embedded database (SQLSTATE class 53): writes answer 503 database_unavailable,
// never 500, /healthz answers 503, and both recover once space is back, without a restart. On a small
// tmpfs of its own, which needs root (mount); skipped with the reason otherwise.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { errorCode } from '../helpers/auth';
import { startServer } from '../helpers/server';
import { buildMessage, fetchNonce, postVerify } from '../helpers/siwe';

const mountPoint = mkdtempSync(path.join(tmpdir(), 'portal-full-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mountPoint]).status === 0;
if (!mounted) console.warn('disk-full.test.ts skipped: mounting a tmpfs needs root (mount -t tmpfs)');

/** One sign-in of a new wallet (a members row): its status and error code. */
async function signInNew(url: string) {
	const account = privateKeyToAccount(generatePrivateKey());
	const { nonce, cookie } = await fetchNonce(url);
	const host = new URL(url).host;
	const message = buildMessage({ domain: host, uri: `http://${host}`, nonce, address: account.address });
	const response = await postVerify(url, { message, signature: await account.signMessage({ message }) }, cookie);
	return { status: response.status, code: response.status === 200 ? null : await errorCode(response) };
}

function fill(file: string) {
	const fd = openSync(file, 'w');
	const block = Buffer.alloc(1 << 16, 1);
	try {
		for (;;) writeSync(fd, block);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
	} finally {
		closeSync(fd);
	}
}

describe.runIf(mounted)('a full disk under the embedded database', () => {
	afterAll(() => {
		spawnSync('umount', ['-l', mountPoint]);
		rmSync(mountPoint, { recursive: true, force: true });
	});

	it('answers writes 503 database_unavailable (never 500) and /healthz 503, and recovers when space is back', async () => {
		const server = await startServer({ env: { PGLITE_DATA_DIR: path.join(mountPoint, 'pglite'), BACKUP_KEEP: '0' } });
		const filler = path.join(mountPoint, 'filler');
		try {
			expect((await signInNew(server.url)).status).toBe(200);
			fill(filler);

			// Rows fit on the table's last page until it is full; then the database needs a new one.
			const answers: Awaited<ReturnType<typeof signInNew>>[] = [];
			for (let i = 0; i < 300 && !answers.some((a) => a.status === 503); i++) answers.push(await signInNew(server.url));
			expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
			expect(answers.at(-1)).toEqual({ status: 503, code: 'database_unavailable' });
			const health = await fetch(`${server.url}/healthz`);
			expect(health.status).toBe(503);
			// Said in the log as a JSON warning, once for the while.
			const warnings = server
				.output()
				.split('\n')
				.filter((line) => line.includes('Writes fail'));
			expect(warnings).toHaveLength(1);
			expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 'warn', sqlstate: '53100' });
			expect(await errorCode(health)).toBe('database_unavailable');

			rmSync(filler);
			let back = 0;
			for (let i = 0; i < 40 && back !== 200; i++) {
				await new Promise((r) => setTimeout(r, 500));
				back = (await fetch(`${server.url}/healthz`)).status;
			}
			expect(back).toBe(200);
			expect(await signInNew(server.url)).toEqual({ status: 200, code: null });
			expect(server.process.exitCode).toBeNull();
		} finally {
			rmSync(filler, { force: true });
			await server.stop();
		}
	}, 240_000);
});
