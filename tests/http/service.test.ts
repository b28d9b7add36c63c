// The systemd unit as the guide installs it (docs/operating.md, "Running as a service"): systemd itself
// checks the unit file, and the service is started as systemd would start it, with `env -i`, the unit's
// Environment= lines, then the EnvironmentFile's lines (.env.example copied and filled in, its empty
// KEY= lines kept), then the STATE_DIRECTORY systemd sets. An empty line is unset: BODY_SIZE_LIMIT=
// lets sign-in's POST through and PGLITE_DATA_DIR= keeps the data in the state directory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, TEST_SESSION_PASSWORD } from '../helpers/server';
import { signIn } from '../helpers/siwe';

const UNIT = 'deploy/systemd/member-portal.service';
const unit = readFileSync(UNIT, 'utf8');
/** The values of `Key=` lines of the unit, in order. */
const settings = (key: string) =>
	[...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]!.trim());

const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!hasAnalyze)
	console.warn('service.test.ts: systemd-analyze is missing (apt-get install systemd): the unit is not verified');

describe('deploy/systemd/member-portal.service', () => {
	const work = mkdtempSync(path.join(tmpdir(), 'portal-unit-'));
	afterAll(() => rmSync(work, { recursive: true, force: true }));

	it.runIf(hasAnalyze)('passes systemd-analyze verify', () => {
		const run = spawnSync('systemd-analyze', ['verify', path.resolve(UNIT)], { encoding: 'utf8' });
		expect({ status: run.status, problems: run.stderr.trim() }).toEqual({ status: 0, problems: '' });
	});

	it('starts as systemd starts it, with .env.example as its EnvironmentFile: data in the state directory, sign-in POSTs not refused', async () => {
		const port = await freePort();
		const state = path.join(work, 'state');
		// What the guide has the operator fill in; every other line of .env.example stays as it is (empty).
		const filled: Record<string, string> = {
			ORIGIN: `http://127.0.0.1:${port}`,
			PORT: String(port),
			HOST: '127.0.0.1',
			SIWE_ALLOWED_DOMAINS: `127.0.0.1:${port}`,
			SESSION_PASSWORD: TEST_SESSION_PASSWORD
		};
		const fileLines = readFileSync('.env.example', 'utf8')
			.split('\n')
			.filter((line) => /^[A-Z_]+=/.test(line))
			.map((line) => {
				const name = line.slice(0, line.indexOf('='));
				return name in filled ? `${name}=${filled[name]}` : line;
			});
		expect(fileLines).toContain('BODY_SIZE_LIMIT=');
		expect(fileLines).toContain('PGLITE_DATA_DIR=');
		const [execStart] = settings('ExecStart');
		const [node, ...args] = execStart!.split(/\s+/);
		expect(node).toBe('/usr/bin/node');
		const child = spawn(
			'env',
			[
				'-i',
				`PATH=${process.env.PATH}`,
				...settings('Environment'),
				...fileLines,
				`STATE_DIRECTORY=${state}`,
				process.execPath,
				...args
			],
			{ stdio: ['ignore', 'pipe', 'pipe'] }
		);
		let output = '';
		child.stdout.on('data', (c: Buffer) => (output += String(c)));
		child.stderr.on('data', (c: Buffer) => (output += String(c)));
		const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
		try {
			for (let i = 0; i < 600 && !/Listening on/.test(output) && child.exitCode === null; i++)
				await new Promise((r) => setTimeout(r, 100));
			expect(output).toMatch(/Listening on/);
			const started = output
				.split('\n')
				.filter((line) => line.startsWith('{'))
				.map((line) => JSON.parse(line) as { msg: string; dataFolder?: string })
				.find((line) => line.msg.startsWith('Database:'));
			expect(started?.dataFolder).toBe(path.join(state, 'pglite'));
			const url = `http://127.0.0.1:${port}`;
			expect(await signIn(url, privateKeyToAccount(generatePrivateKey()))).toMatch(/^session=./);
		} finally {
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
		}
	}, 120_000);
});
