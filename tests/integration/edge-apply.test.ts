// `npm run edge:apply` against a fake Vercel API on loopback.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../helpers/json';
import { ROOT, runScript as run } from '../helpers/scripts';

const TOKEN = 'vercel-test-token-7f3a9c1e5b';

/** The parts of a Vercel firewall configuration these tests read. */
interface FirewallRule {
	id?: string;
	name: string;
	active: boolean;
	conditionGroup: unknown;
	action: { mitigate: { action: string; rateLimit?: { action: string } & Record<string, unknown> } };
}
interface FirewallConfig {
	firewallEnabled?: boolean;
	rules: FirewallRule[];
	ips?: unknown[];
}

interface Seen {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingHttpHeaders;
	body: FirewallConfig;
}

/** A stand-in for api.vercel.com's two firewall endpoints, recording every request. */
function fakeVercel() {
	const seen: Seen[] = [];
	let current: unknown = null;
	let putStatus = 200;
	const server: Server = createServer((req, res) => {
		let raw = '';
		req.on('data', (c: Buffer) => (raw += c.toString()));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://fake');
			seen.push({
				method: req.method ?? '',
				path: url.pathname,
				query: url.searchParams,
				headers: req.headers,
				body: raw ? parseJson<FirewallConfig>(raw) : { rules: [] }
			});
			res.setHeader('Content-Type', 'application/json');
			if (req.method === 'GET' && url.pathname === '/v1/security/firewall/config/active') {
				if (current === null) res.writeHead(404).end('{"error":{"code":"not_found","message":"No config"}}');
				else res.writeHead(200).end(JSON.stringify(current));
			} else if (req.method === 'PUT' && url.pathname === '/v1/security/firewall/config') {
				if (putStatus !== 200) {
					res.writeHead(putStatus).end('{"error":{"code":"forbidden","message":"Not authorized for this project"}}');
				} else res.writeHead(200).end(JSON.stringify({ active: parseJson<FirewallConfig>(raw) }));
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

const ourRules = (body: FirewallConfig) => body.rules.filter((r) => r.name.startsWith('portal-edge'));

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
		expect(put.body.rules.map((r) => r.name)).toEqual([
			FOREIGN_RULE.name,
			'portal-edge-auth',
			'portal-edge-community-pulse'
		]);
		const [auth, pulse] = ourRules(put.body);
		// The plain path, or (second group) a regular expression for its odd spellings (edge-vercel-paths.test.ts).
		expect(auth?.conditionGroup).toEqual([
			{ conditions: [{ type: 'path', op: 'pre', value: '/api/auth/' }] },
			{ conditions: [{ type: 'path', op: 're', value: expect.stringContaining('(?:h|%68)') as string }] }
		]);
		expect(pulse?.conditionGroup).toEqual([
			{ conditions: [{ type: 'path', op: 'eq', value: '/api/community-pulse' }] },
			{ conditions: [{ type: 'path', op: 're', value: expect.stringContaining('(?:-|%2[dD])') as string }] }
		]);
		for (const rule of [auth, pulse]) {
			expect(rule?.active).toBe(true);
			expect(rule?.action.mitigate.action).toBe('rate_limit');
			expect(rule?.action.mitigate.rateLimit).toEqual({
				algo: 'fixed_window',
				window: 60,
				limit: 100,
				keys: ['ip'],
				action: 'log'
			});
		}
		expect(auth?.id).not.toBe(pulse?.id);
		expect(result.stdout + result.stderr).not.toContain(TOKEN);
	});

	it('--mode enforce switches both rules to rate_limit (429); without a team id none is sent', async () => {
		reset();
		const result = await run('scripts/edge-apply.js', ['--mode', 'enforce'], env());
		expect(result.code, result.stderr).toBe(0);
		const put = api.seen.find((s) => s.method === 'PUT')!;
		expect(Object.fromEntries(put.query)).toEqual({ projectId: 'prj_portal' });
		expect(ourRules(put.body).map((r) => r.action.mitigate.rateLimit?.action)).toEqual(['rate_limit', 'rate_limit']);
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
		expect(put.body.rules.map((r) => r.name)).toEqual([FOREIGN_RULE.name, 'portal-edge-api']);
		const [single] = ourRules(put.body);
		expect(single?.conditionGroup).toEqual([
			{ conditions: [{ type: 'path', op: 'pre', value: '/api/' }] },
			{ conditions: [{ type: 'path', op: 're', value: expect.stringContaining('(?:i|%69)') as string }] }
		]);
		expect(single?.action.mitigate.rateLimit).toEqual({
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

		const edits: [string, (rule: FirewallRule) => void][] = [
			['rateLimit.action', (rule) => (rule.action.mitigate.rateLimit!.action = 'deny')],
			['mitigate.action', (rule) => (rule.action.mitigate.action = 'deny')]
		];
		for (const [field, edit] of edits) {
			for (const mode of ['log', 'enforce']) {
				it(`${field} = deny, --mode ${mode}`, async () => {
					reset();
					const file = path.join(copy, 'deploy/vercel/rules.json');
					const original = readFileSync(path.join(ROOT, 'deploy/vercel/rules.json'), 'utf8');
					const json = parseJson<FirewallConfig>(original);
					edit(json.rules[1]!);
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
		const body = parseJson<FirewallConfig>(result.stdout.slice(result.stdout.indexOf('\n{') + 1));
		expect(body.rules.map((r) => r.name)).toEqual([
			FOREIGN_RULE.name,
			'portal-edge-auth',
			'portal-edge-community-pulse'
		]);
		expect(ourRules(body).map((r) => r.action.mitigate.rateLimit?.action)).toEqual(['rate_limit', 'rate_limit']);
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
