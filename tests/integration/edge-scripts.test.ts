// `npm run edge:apply` against a fake Vercel API on loopback, and `npm run edge:check` against
// nginx running the shipped configuration, the plain portal and a server that denies.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_BIN, NGINX_MISSING_REASON, roomInMinute, startNginx, type RunningNginx } from '../helpers/nginx';
import { startServer, type RunningServer } from '../helpers/server';

const ROOT = path.resolve('.');
const TOKEN = 'vercel-test-token-7f3a9c1e5b';

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a script as `npm run` would (node, from the repository root), without blocking this process. */
function run(script: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Run> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [script, ...args], {
			cwd,
			env: { PATH: process.env.PATH ?? '', ...env },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c) => (stdout += c));
		child.stderr.on('data', (c) => (stderr += c));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

interface Seen {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingHttpHeaders;
	body: any;
}

/** A stand-in for api.vercel.com's two firewall endpoints, recording every request. */
function fakeVercel() {
	const seen: Seen[] = [];
	let current: unknown = null;
	let putStatus = 200;
	const server: Server = createServer((req, res) => {
		let raw = '';
		req.on('data', (c) => (raw += c));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://fake');
			seen.push({
				method: req.method ?? '',
				path: url.pathname,
				query: url.searchParams,
				headers: req.headers,
				body: raw ? JSON.parse(raw) : null
			});
			res.setHeader('Content-Type', 'application/json');
			if (req.method === 'GET' && url.pathname === '/v1/security/firewall/config/active') {
				if (current === null) res.writeHead(404).end('{"error":{"code":"not_found","message":"No config"}}');
				else res.writeHead(200).end(JSON.stringify(current));
			} else if (req.method === 'PUT' && url.pathname === '/v1/security/firewall/config') {
				if (putStatus !== 200) {
					res.writeHead(putStatus).end('{"error":{"code":"forbidden","message":"Not authorized for this project"}}');
				} else res.writeHead(200).end(JSON.stringify({ active: JSON.parse(raw) }));
			} else res.writeHead(404).end('{"error":{"code":"not_found","message":"?"}}');
		});
	});
	return {
		seen,
		server,
		setCurrent: (config: unknown) => (current = config),
		setPutStatus: (status: number) => (putStatus = status),
		url: () => {
			const a = server.address();
			return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
		}
	};
}

const FOREIGN_RULE = {
	id: 'rule_block_wp',
	name: 'block wordpress probes',
	active: true,
	conditionGroup: [{ conditions: [{ type: 'path', op: 'pre', value: '/wp-' }] }],
	action: { mitigate: { action: 'deny' } }
};
const OLD_SINGLE = {
	id: 'rule_portal_edge_api',
	name: 'portal-edge-api',
	active: true,
	conditionGroup: [{ conditions: [{ type: 'path', op: 'pre', value: '/api/' }] }],
	action: {
		mitigate: {
			action: 'rate_limit',
			rateLimit: { algo: 'fixed_window', window: 60, limit: 100, keys: ['ip'], action: 'log' }
		}
	}
};
const IP_BLOCK = { id: 'ip_1', hostname: 'portal.example', ip: '192.0.2.7', action: 'deny' };

const ourRules = (body: any) => (body.rules as any[]).filter((r) => String(r.name).startsWith('portal-edge'));

describe('npm run edge:apply (fake Vercel API on loopback)', () => {
	const api = fakeVercel();
	const env = () => ({ VERCEL_TOKEN: TOKEN, VERCEL_PROJECT_ID: 'prj_portal', VERCEL_API_URL: api.url() });

	beforeAll(() => new Promise<void>((r) => api.server.listen(0, '127.0.0.1', r)));
	afterAll(() => new Promise<void>((r) => api.server.close(() => r())));
	const reset = (current: unknown = null) => {
		api.seen.length = 0;
		api.setCurrent(current);
		api.setPutStatus(200);
	};

	it("--mode log reads the active config, then PUTs the two rules with action log, keeping the project's other rules", async () => {
		reset({ firewallEnabled: true, rules: [FOREIGN_RULE, OLD_SINGLE], ips: [IP_BLOCK] });
		const result = await run('scripts/edge-apply.js', ['--mode', 'log'], { ...env(), VERCEL_TEAM_ID: 'team_members' });
		expect(result.code, result.stderr).toBe(0);
		expect(api.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
			'GET /v1/security/firewall/config/active',
			'PUT /v1/security/firewall/config'
		]);
		for (const s of api.seen) {
			expect(Object.fromEntries(s.query)).toEqual({ projectId: 'prj_portal', teamId: 'team_members' });
			expect(s.headers.authorization).toBe(`Bearer ${TOKEN}`);
		}
		const put = api.seen[1]!;
		expect(put.headers['content-type']).toBe('application/json');
		expect(put.body.firewallEnabled).toBe(true);
		expect(put.body.ips).toEqual([IP_BLOCK]);
		// The project's own rule stays first and untouched; the other variant's rule is gone.
		expect(put.body.rules[0]).toEqual(FOREIGN_RULE);
		expect(put.body.rules.map((r: any) => r.name)).toEqual([
			FOREIGN_RULE.name,
			'portal-edge-auth',
			'portal-edge-community-pulse'
		]);
		const [auth, pulse] = ourRules(put.body);
		expect(auth.conditionGroup).toEqual([{ conditions: [{ type: 'path', op: 'pre', value: '/api/auth/' }] }]);
		expect(pulse.conditionGroup).toEqual([{ conditions: [{ type: 'path', op: 'eq', value: '/api/community-pulse' }] }]);
		for (const rule of [auth, pulse]) {
			expect(rule.active).toBe(true);
			expect(rule.action.mitigate.action).toBe('rate_limit');
			expect(rule.action.mitigate.rateLimit).toEqual({
				algo: 'fixed_window',
				window: 60,
				limit: 100,
				keys: ['ip'],
				action: 'log'
			});
		}
		expect(auth.id).not.toBe(pulse.id);
		expect(result.stdout + result.stderr).not.toContain(TOKEN);
	});

	it('--mode enforce switches both rules to rate_limit (429); without a team id none is sent', async () => {
		reset();
		const result = await run('scripts/edge-apply.js', ['--mode', 'enforce'], env());
		expect(result.code, result.stderr).toBe(0);
		const put = api.seen.find((s) => s.method === 'PUT')!;
		expect(Object.fromEntries(put.query)).toEqual({ projectId: 'prj_portal' });
		expect(ourRules(put.body).map((r) => r.action.mitigate.rateLimit.action)).toEqual(['rate_limit', 'rate_limit']);
		expect(result.stdout).toMatch(/429/);
	});

	it('--single-rule applies one /api/ rule with the auth limit and removes the two path rules', async () => {
		reset({ firewallEnabled: true, rules: [FOREIGN_RULE], ips: [] });
		await run('scripts/edge-apply.js', ['--mode', 'log'], env());
		const two = api.seen.find((s) => s.method === 'PUT')!.body;
		api.seen.length = 0;
		api.setCurrent(two);
		const result = await run('scripts/edge-apply.js', ['--mode', 'enforce', '--single-rule'], env());
		expect(result.code, result.stderr).toBe(0);
		const put = api.seen.find((s) => s.method === 'PUT')!;
		expect(put.body.rules.map((r: any) => r.name)).toEqual([FOREIGN_RULE.name, 'portal-edge-api']);
		const [single] = ourRules(put.body);
		expect(single.conditionGroup).toEqual([{ conditions: [{ type: 'path', op: 'pre', value: '/api/' }] }]);
		expect(single.action.mitigate.rateLimit).toEqual({
			algo: 'fixed_window',
			window: 60,
			limit: 100,
			keys: ['ip'],
			action: 'rate_limit'
		});
	});

	it('refuses --mode deny outright, sending nothing', async () => {
		reset();
		const result = await run('scripts/edge-apply.js', ['--mode', 'deny'], env());
		expect(result.code).toBe(3);
		expect(result.stderr).toMatch(/Refused.*deny.*403/);
		expect(api.seen).toEqual([]);
	});

	describe('refuses rule files edited to say deny, sending nothing', () => {
		let copy: string;
		beforeAll(() => {
			// The script finds its rule files next to itself: a copy of it with edited files.
			copy = mkdtempSync(path.join(tmpdir(), 'portal-edge-apply-'));
			mkdirSync(path.join(copy, 'scripts'));
			cpSync(path.join(ROOT, 'scripts/edge-apply.js'), path.join(copy, 'scripts/edge-apply.js'));
			cpSync(path.join(ROOT, 'deploy/vercel'), path.join(copy, 'deploy/vercel'), { recursive: true });
			symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
		});
		afterAll(() => rmSync(copy, { recursive: true, force: true }));

		const edits: [string, (rule: any) => void][] = [
			['rateLimit.action', (rule) => (rule.action.mitigate.rateLimit.action = 'deny')],
			['mitigate.action', (rule) => (rule.action.mitigate.action = 'deny')]
		];
		for (const [field, edit] of edits) {
			for (const mode of ['log', 'enforce']) {
				it(`${field} = deny, --mode ${mode}`, async () => {
					reset();
					const file = path.join(copy, 'deploy/vercel/rules.json');
					const original = readFileSync(path.join(ROOT, 'deploy/vercel/rules.json'), 'utf8');
					const json = JSON.parse(original);
					edit(json.rules[1]);
					writeFileSync(file, JSON.stringify(json));
					const result = await run(path.join(copy, 'scripts/edge-apply.js'), ['--mode', mode], env(), copy);
					writeFileSync(file, original);
					expect(result.code).toBe(3);
					expect(result.stderr).toMatch(/Refused:.*deny/);
					expect(api.seen).toEqual([]);
				});
			}
		}
	});

	it('--dry-run prints the PUT it would send, token redacted, and writes nothing', async () => {
		reset({ firewallEnabled: true, rules: [FOREIGN_RULE] });
		const result = await run('scripts/edge-apply.js', ['--mode', 'enforce', '--dry-run'], {
			...env(),
			VERCEL_TEAM_ID: 'team_members'
		});
		expect(result.code, result.stderr).toBe(0);
		expect(api.seen.map((s) => s.method)).toEqual(['GET']);
		expect(result.stdout).toContain(
			`PUT ${api.url()}/v1/security/firewall/config?projectId=prj_portal&teamId=team_members`
		);
		expect(result.stdout).toContain('Authorization: Bearer <redacted>');
		expect(result.stdout + result.stderr).not.toContain(TOKEN);
		const body = JSON.parse(result.stdout.slice(result.stdout.indexOf('\n{') + 1));
		expect(body.rules.map((r: any) => r.name)).toEqual([
			FOREIGN_RULE.name,
			'portal-edge-auth',
			'portal-edge-community-pulse'
		]);
		expect(ourRules(body).map((r) => r.action.mitigate.rateLimit.action)).toEqual(['rate_limit', 'rate_limit']);
	});

	it('--dry-run without a token contacts nobody', async () => {
		reset();
		const result = await run('scripts/edge-apply.js', ['--mode', 'log', '--dry-run'], {
			VERCEL_PROJECT_ID: 'prj_portal',
			VERCEL_API_URL: api.url()
		});
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toContain('Authorization: Bearer <redacted>');
		expect(api.seen).toEqual([]);
	});

	it('without VERCEL_TOKEN or VERCEL_PROJECT_ID it stops before any request', async () => {
		reset();
		const noToken = await run('scripts/edge-apply.js', ['--mode', 'log'], {
			VERCEL_PROJECT_ID: 'prj_portal',
			VERCEL_API_URL: api.url()
		});
		const noProject = await run('scripts/edge-apply.js', ['--mode', 'log'], {
			VERCEL_TOKEN: TOKEN,
			VERCEL_API_URL: api.url()
		});
		expect([noToken.code, noProject.code]).toEqual([1, 1]);
		expect(noToken.stderr).toContain('VERCEL_TOKEN');
		expect(noProject.stderr).toContain('VERCEL_PROJECT_ID');
		expect(api.seen).toEqual([]);
	});

	it('reports an API refusal with its status and message, never the token', async () => {
		reset();
		api.setPutStatus(403);
		const result = await run('scripts/edge-apply.js', ['--mode', 'enforce'], env());
		expect(result.code).toBe(4);
		expect(result.stderr).toContain('HTTP 403');
		expect(result.stderr).toContain('Not authorized for this project');
		expect(result.stdout + result.stderr).not.toContain(TOKEN);
	});
});

if (!NGINX_BIN) console.warn(`SKIPPED (edge:check against nginx): ${NGINX_MISSING_REASON}`);

describe('npm run edge:check', () => {
	let portal: RunningServer;
	let denier: Server;
	let denierUrl = '';
	beforeAll(async () => {
		portal = await startServer();
		// A site whose rule denies (403) over the limit: the wrong action.
		let count = 0;
		denier = createServer((_req, res) => res.writeHead(++count > 100 ? 403 : 200).end());
		await new Promise<void>((r) => denier.listen(0, '127.0.0.1', r));
		const a = denier.address();
		denierUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
	});
	afterAll(async () => {
		await portal?.stop();
		await new Promise<void>((r) => denier.close(() => r()));
	});

	describe.skipIf(!NGINX_BIN)('against nginx with the shipped configuration', { timeout: 90_000 }, () => {
		const edges: RunningNginx[] = [];
		afterAll(() => Promise.all(edges.map((e) => e.stop())));

		it('enforcing: active (exit 0) on /api/auth/nonce and, separately, on /api/community-pulse', async () => {
			const edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'enforce' });
			edges.push(edge);
			await roomInMinute(25);
			const auth = await run('scripts/edge-check.js', [edge.url]);
			expect(auth.code, auth.stdout + auth.stderr).toBe(0);
			expect(auth.stdout).toMatch(/ACTIVE: request #101 was answered 429/);
			const pulse = await run('scripts/edge-check.js', [edge.url, '--community-pulse']);
			expect(pulse.code, pulse.stdout + pulse.stderr).toBe(0);
			expect(pulse.stdout).toContain('/api/community-pulse');
			expect(pulse.stdout).toMatch(/ACTIVE: request #101 was answered 429/);
		});

		it('in the Log phase: not active (exit 2)', async () => {
			const edge = await startNginx({ upstream: `127.0.0.1:${portal.port}`, mode: 'log' });
			edges.push(edge);
			const result = await run('scripts/edge-check.js', [edge.url]);
			expect(result.code, result.stdout + result.stderr).toBe(2);
			expect(result.stdout).toMatch(/NOT ACTIVE: all 101 requests passed/);
		});
	});

	it('against the plain portal (no edge): not active (exit 2)', async () => {
		const result = await run('scripts/edge-check.js', [portal.url, '--path', '/api/auth/nonce']);
		expect(result.code, result.stdout + result.stderr).toBe(2);
		expect(result.stdout).toMatch(/NOT ACTIVE/);
	});

	it('against a site that denies: wrong action (exit 3)', async () => {
		const result = await run('scripts/edge-check.js', [denierUrl]);
		expect(result.code, result.stdout + result.stderr).toBe(3);
		expect(result.stdout).toMatch(/WRONG ACTION: request #101 was answered 403/);
	});

	it('usage errors and an unreachable site: exit 1', async () => {
		expect((await run('scripts/edge-check.js', [])).code).toBe(1);
		expect((await run('scripts/edge-check.js', ['ftp://example.org'])).code).toBe(1);
		expect((await run('scripts/edge-check.js', [portal.url, '--limit', 'many'])).code).toBe(1);
		const closed = createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
		const a = closed.address();
		await new Promise<void>((r) => closed.close(() => r()));
		const unreachable = await run('scripts/edge-check.js', [
			`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`
		]);
		expect(unreachable.code).toBe(1);
		expect(unreachable.stderr).toMatch(/Request #1 failed/);
	});
});
