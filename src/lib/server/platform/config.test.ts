import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

const SECRET = 'a-secret-that-is-long-enough-0123456789';
const good = { SESSION_PASSWORD: SECRET, SIWE_ALLOWED_DOMAINS: 'portal.example.org' };

function problems(env: Record<string, string | undefined>) {
	try {
		loadConfig(env);
	} catch (err) {
		expect(err).toBeInstanceOf(ConfigError);
		return Object.fromEntries((err as ConfigError).problems.map((p) => [p.variable, p.problem]));
	}
	throw new Error('expected a ConfigError');
}

describe('configuration', () => {
	it('accepts a minimal configuration and fills the documented defaults', () => {
		const config = loadConfig(good);
		expect(config.sessionTtlSeconds).toBe(1_209_600);
		expect(config.communityPulseTtlSeconds).toBe(300);
		expect(config.githubApiUrl).toBe('https://api.github.com');
		expect(config.databaseUrl).toBeNull();
		expect(config.pgliteDataDir).toBe('.data/pglite');
		expect(config.adminAddresses.size).toBe(0);
		expect(config.sessionPasswordsPrevious).toEqual([]);
		expect(config.token).toBeNull();
		expect(config.polygonRpcUrl).toBeNull();
		expect(config.walletConnectProjectId).toBeNull();
	});

	it('SESSION_PASSWORD is required and at least 32 characters, and its value is never printed', () => {
		expect(problems({ ...good, SESSION_PASSWORD: undefined }).SESSION_PASSWORD).toMatch(/required/);
		const short = 'short-but-secret-value';
		try {
			loadConfig({ ...good, SESSION_PASSWORD: short });
			expect.unreachable();
		} catch (err) {
			expect((err as Error).message).toMatch(/SESSION_PASSWORD: must be at least 32 characters/);
			expect((err as Error).message).not.toContain(short);
		}
		expect(() => loadConfig({ ...good, SESSION_PASSWORD: 'Vd4x-qN7pL2z_Hc9-tWm3Rb8-Ky6sFj1a' })).not.toThrow();
	});

	it('SESSION_PASSWORD is refused when a strength estimator rates it guessable, saying how to make one, never printing it', () => {
		for (const weak of ['x'.repeat(32), 'passwordpasswordpasswordpassword12', '0123456789012345678901234567890123']) {
			try {
				loadConfig({ ...good, SESSION_PASSWORD: weak });
				expect.unreachable();
			} catch (err) {
				expect((err as Error).message).toMatch(/SESSION_PASSWORD: is guessable/);
				expect((err as Error).message).toContain('openssl rand -base64 32');
				expect((err as Error).message).not.toContain(weak);
			}
		}
		// What `openssl rand -base64 32` and the `npm start` launcher (32 random bytes, base64url) make.
		for (let i = 0; i < 20; i++) {
			for (const encoding of ['base64', 'base64url'] as const) {
				expect(() => loadConfig({ ...good, SESSION_PASSWORD: randomBytes(32).toString(encoding) })).not.toThrow();
			}
		}
	});

	it('each guessable SESSION_PASSWORD_PREVIOUS entry is named by its position, never by its value', () => {
		const weak = ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'abcdefghijklmnopqrstuvwxyz0123456789'];
		const message = problems({
			...good,
			SESSION_PASSWORD_PREVIOUS: `${weak[0]},${SECRET},${weak[1]}`
		}).SESSION_PASSWORD_PREVIOUS;
		expect(message).toMatch(/entries 1 and 3 are guessable/);
		expect(message).toContain('openssl rand -base64 32');
		for (const w of weak) expect(message).not.toContain(w);
		expect(problems({ ...good, SESSION_PASSWORD_PREVIOUS: `${SECRET},${weak[1]}` }).SESSION_PASSWORD_PREVIOUS).toMatch(
			/entry 2 is guessable/
		);
	});

	it('SESSION_PASSWORD_PREVIOUS is a comma-separated list of passwords of 32 or more characters', () => {
		const old = 'an-older-password-also-long-enough-42';
		expect(loadConfig({ ...good, SESSION_PASSWORD_PREVIOUS: ` ${old} ,, ` }).sessionPasswordsPrevious).toEqual([old]);
		const message = problems({ ...good, SESSION_PASSWORD_PREVIOUS: `${old},tooshort` }).SESSION_PASSWORD_PREVIOUS;
		expect(message).toMatch(/at least 32/);
		expect(message).not.toContain('tooshort');
	});

	it('SIWE_ALLOWED_DOMAINS trims blanks, ignores empty entries and lowercases', () => {
		const config = loadConfig({ ...good, SIWE_ALLOWED_DOMAINS: ' Portal.Example.org , ,localhost:5173,' });
		expect(config.siweAllowedDomains).toEqual(['portal.example.org', 'localhost:5173']);
	});

	it('SIWE_ALLOWED_DOMAINS must not be empty', () => {
		expect(problems({ ...good, SIWE_ALLOWED_DOMAINS: undefined }).SIWE_ALLOWED_DOMAINS).toMatch(/required/);
		expect(problems({ ...good, SIWE_ALLOWED_DOMAINS: ' , ,' }).SIWE_ALLOWED_DOMAINS).toMatch(/required/);
	});

	it.each([
		['https://portal.example.org', /scheme/],
		['portal.example.org/login', /path/],
		['user@portal.example.org', /user info/],
		['*.example.org', /wildcard/],
		['portal.example.org:99999', /port/],
		['bad_host!', /not a valid host/]
	])('SIWE_ALLOWED_DOMAINS refuses %s', (entry, reason) => {
		const message = problems({ ...good, SIWE_ALLOWED_DOMAINS: `ok.example.org, ${entry}` }).SIWE_ALLOWED_DOMAINS;
		expect(message).toMatch(reason);
		expect(message).toContain(entry);
	});

	it('REVIEWER_ADDRESSES is read as ADMIN_ADDRESSES is, and REVIEW_QUORUM is a positive whole number, 2 by default', () => {
		const r = '0x' + 'C'.repeat(40);
		const config = loadConfig({ ...good, REVIEWER_ADDRESSES: ` ${r} ,, ` });
		expect([...config.reviewerAddresses]).toEqual([r.toLowerCase()]);
		expect(config.reviewQuorum).toBe(2);
		expect(loadConfig({ ...good, REVIEW_QUORUM: '3' }).reviewQuorum).toBe(3);
		const bad = problems({ ...good, REVIEWER_ADDRESSES: `${r},0x12`, REVIEW_QUORUM: '0' });
		expect(bad.REVIEWER_ADDRESSES).toContain('"0x12" is not a 0x address of 40 hex digits');
		expect(bad.REVIEW_QUORUM).toBe('must be a positive whole number');
		expect(problems({ ...good, REVIEW_QUORUM: '1.5' }).REVIEW_QUORUM).toBe('must be a positive whole number');
	});

	it('ADMIN_ADDRESSES may be empty, compares case-insensitively and names a bad entry', () => {
		const a = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';
		expect([...loadConfig({ ...good, ADMIN_ADDRESSES: ` ${a} , ` }).adminAddresses]).toEqual([a.toLowerCase()]);
		expect(loadConfig({ ...good, ADMIN_ADDRESSES: '' }).adminAddresses.size).toBe(0);
		const message = problems({ ...good, ADMIN_ADDRESSES: `${a},0x1234,not-an-address` }).ADMIN_ADDRESSES;
		expect(message).toContain('"0x1234"');
		expect(message).toContain('"not-an-address"');
		expect(message).not.toContain(a);
	});

	it('DATABASE_URL must be a postgres URL and is never printed', () => {
		expect(loadConfig({ ...good, DATABASE_URL: 'postgresql://u:p@db:5432/portal' }).databaseUrl).toBe(
			'postgresql://u:p@db:5432/portal'
		);
		const bad = 'mysql://user:hunter2@db/portal';
		try {
			loadConfig({ ...good, DATABASE_URL: bad });
			expect.unreachable();
		} catch (err) {
			expect((err as Error).message).toMatch(/DATABASE_URL: must be a postgres/);
			expect((err as Error).message).not.toContain('hunter2');
		}
	});

	it('COMMUNITY_TIME_ZONE is an IANA name (default UTC); an unknown one is refused at start, naming it', () => {
		expect(loadConfig(good).communityTimeZone).toBe('UTC');
		expect(loadConfig({ ...good, COMMUNITY_TIME_ZONE: '' }).communityTimeZone).toBe('UTC');
		expect(loadConfig({ ...good, COMMUNITY_TIME_ZONE: ' Europe/Berlin ' }).communityTimeZone).toBe('Europe/Berlin');
		expect(problems({ ...good, COMMUNITY_TIME_ZONE: 'Mars/Olympus_Mons' }).COMMUNITY_TIME_ZONE).toMatch(
			/"Mars\/Olympus_Mons" is not a time zone .*IANA name/
		);
	});

	it('numbers must be positive whole numbers', () => {
		expect(loadConfig({ ...good, SESSION_TTL_SECONDS: '60' }).sessionTtlSeconds).toBe(60);
		for (const bad of ['0', '-5', '1.5', 'ten', '1e3']) {
			expect(problems({ ...good, SESSION_TTL_SECONDS: bad }).SESSION_TTL_SECONDS).toMatch(/positive whole number/);
			expect(problems({ ...good, COMMUNITY_PULSE_TTL_SECONDS: bad }).COMMUNITY_PULSE_TTL_SECONDS).toMatch(
				/positive whole number/
			);
		}
	});

	it('COMMUNITY_PULSE_REPO is owner/name; GITHUB_API_URL and POLYGON_RPC_URL are http(s) URLs', () => {
		const config = loadConfig({
			...good,
			COMMUNITY_PULSE_REPO: 'our-org/portal',
			GITHUB_API_URL: 'http://127.0.0.1:9999/',
			GITHUB_TOKEN: 'ghp_secret',
			POLYGON_RPC_URL: 'https://polygon.example/rpc'
		});
		expect(config.communityPulseRepo).toBe('our-org/portal');
		expect(config.githubApiUrl).toBe('http://127.0.0.1:9999');
		expect(config.githubToken).toBe('ghp_secret');
		expect(config.polygonRpcUrl).toBe('https://polygon.example/rpc');
		expect(problems({ ...good, COMMUNITY_PULSE_REPO: 'just-a-name' }).COMMUNITY_PULSE_REPO).toMatch(/owner\/name/);
		expect(problems({ ...good, GITHUB_API_URL: 'ftp://x' }).GITHUB_API_URL).toMatch(/http/);
		expect(problems({ ...good, POLYGON_RPC_URL: 'ws://x' }).POLYGON_RPC_URL).toMatch(/http/);
	});

	it('PUBLIC_TOKEN_* describe one ERC-20 token, all three required parts together', () => {
		const token = {
			PUBLIC_TOKEN_ADDRESS: '0x0000000000000000000000000000000000001010',
			PUBLIC_TOKEN_SYMBOL: 'MEMBER',
			PUBLIC_TOKEN_DECIMALS: '18'
		};
		expect(loadConfig({ ...good, ...token }).token).toEqual({
			...{ address: token.PUBLIC_TOKEN_ADDRESS },
			symbol: 'MEMBER',
			decimals: 18,
			image: null
		});
		expect(problems({ ...good, PUBLIC_TOKEN_SYMBOL: 'MEMBER' }).PUBLIC_TOKEN_ADDRESS).toMatch(/go together/);
		expect(problems({ ...good, ...token, PUBLIC_TOKEN_DECIMALS: '99' }).PUBLIC_TOKEN_DECIMALS).toMatch(/0 to 36/);
		expect(problems({ ...good, ...token, PUBLIC_TOKEN_SYMBOL: 'WAYTOOLONGSYMBOL' }).PUBLIC_TOKEN_SYMBOL).toMatch(/11/);
		expect(problems({ ...good, ...token, PUBLIC_TOKEN_ADDRESS: '0x12' }).PUBLIC_TOKEN_ADDRESS).toMatch(/address/);
	});

	it('SAFE_APP_ORIGINS: empty by default; https origins (http only on loopback), each once; anything wider is named', () => {
		expect(loadConfig(good).safeAppOrigins).toEqual([]);
		expect(
			loadConfig({
				...good,
				SAFE_APP_ORIGINS: ' https://App.Safe.Global, ,http://127.0.0.1:5173,https://app.safe.global:443'
			}).safeAppOrigins
		).toEqual(['https://app.safe.global', 'http://127.0.0.1:5173']);
		for (const [entry, problem] of [
			['*', 'has a wildcard'],
			['https://*.safe.global', 'has a wildcard'],
			['http://app.safe.global', 'must be https://'],
			['https://app.safe.global/', 'must be an origin only'],
			['https://user@app.safe.global', 'must be an origin only'],
			["https://a.example'unsafe-inline'", 'has a host name that is not letters'],
			['https://a.example;script-src', 'has a host name that is not letters'],
			['app.safe.global', 'is not an origin']
		])
			expect(problems({ ...good, SAFE_APP_ORIGINS: entry }).SAFE_APP_ORIGINS, entry).toContain(`"${entry}" ${problem}`);
	});

	it('PUBLIC_WALLETCONNECT_PROJECT_ID is 32 lowercase hex digits, trimmed; a bad one is named', () => {
		const id = '0123456789abcdef0123456789abcdef';
		expect(loadConfig({ ...good, PUBLIC_WALLETCONNECT_PROJECT_ID: ` ${id} ` }).walletConnectProjectId).toBe(id);
		expect(loadConfig({ ...good, PUBLIC_WALLETCONNECT_PROJECT_ID: '' }).walletConnectProjectId).toBeNull();
		for (const bad of [id.toUpperCase(), id.slice(1), `${id}0`, `${id.slice(1)}g`, 'your-project-id']) {
			expect(problems({ ...good, PUBLIC_WALLETCONNECT_PROJECT_ID: bad })).toEqual({
				PUBLIC_WALLETCONNECT_PROJECT_ID: 'must be a WalletConnect Cloud project id: 32 lowercase hex digits'
			});
		}
	});

	it('lists every bad variable at once', () => {
		const err = (() => {
			try {
				loadConfig({
					SESSION_PASSWORD: 'short',
					SIWE_ALLOWED_DOMAINS: 'http://x',
					ADMIN_ADDRESSES: 'nope',
					SESSION_TTL_SECONDS: '0'
				});
			} catch (e) {
				return e as ConfigError;
			}
		})();
		expect(err?.problems.map((p) => p.variable).sort()).toEqual([
			'ADMIN_ADDRESSES',
			'SESSION_PASSWORD',
			'SESSION_TTL_SECONDS',
			'SIWE_ALLOWED_DOMAINS'
		]);
	});
});

describe('webhook configuration', () => {
	const secret = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`;
	const hook = 'https://discord.com/api/webhooks/123/secret-token-part';

	it('is off without WEBHOOK_URLS; with it, keeps each URL once and defaults the timeout to 10 s', () => {
		expect(loadConfig(good).webhooks).toBeNull();
		const config = loadConfig({
			...good,
			WEBHOOK_URLS: ` ${hook} ,, http://127.0.0.1:8080/hook,${hook}`,
			WEBHOOK_SECRET: secret
		});
		expect(config.webhooks).toEqual({
			urls: [hook, 'http://127.0.0.1:8080/hook'],
			secret,
			timeoutSeconds: 10
		});
	});

	it('http:// only for loopback hosts; refused entries are named by position, never by value', () => {
		for (const ok of ['http://localhost:3000/x', 'http://[::1]/x', 'http://127.0.0.2/x']) {
			expect(loadConfig({ ...good, WEBHOOK_URLS: ok, WEBHOOK_SECRET: secret }).webhooks?.urls).toHaveLength(1);
		}
		const bad = 'http://bot.example.org/hook/secret-token';
		const message = problems({
			...good,
			WEBHOOK_URLS: `${hook},${bad},ftp://x.example/y,not a url,https://user:pw@x.example/`,
			WEBHOOK_SECRET: secret
		}).WEBHOOK_URLS;
		expect(message).toMatch(/entry 2 uses http:\/\/ for a host that is not loopback/);
		expect(message).toMatch(/entry 3 must be an https:\/\/ URL/);
		expect(message).toMatch(/entry 4 is not a URL/);
		expect(message).toMatch(/entry 5 has user info/);
		expect(message).not.toMatch(/secret-token|bot\.example|pw/);
	});

	it('WEBHOOK_SECRET is required with WEBHOOK_URLS, is whsec_ + base64 of >= 24 bytes, and is never printed', () => {
		expect(problems({ ...good, WEBHOOK_URLS: hook }).WEBHOOK_SECRET).toMatch(/required when WEBHOOK_URLS/);
		const short = `whsec_${Buffer.from('only-twenty-three-bytes').toString('base64')}`;
		for (const wrong of [short, 'whsec_not*base64*at*all*xxxxxxxxxxxxxxxxxxxx', secret.slice(6), `${secret}=`]) {
			try {
				loadConfig({ ...good, WEBHOOK_URLS: hook, WEBHOOK_SECRET: wrong });
				expect.unreachable();
			} catch (err) {
				expect((err as ConfigError).problems.map((p) => p.variable)).toEqual(['WEBHOOK_SECRET']);
				expect((err as Error).message).toMatch(/whsec_ followed by the base64 of at least 24 random bytes/);
				expect((err as Error).message).not.toContain(wrong);
			}
		}
	});

	it('WEBHOOK_TIMEOUT_SECONDS is a positive whole number', () => {
		const env = { ...good, WEBHOOK_URLS: hook, WEBHOOK_SECRET: secret };
		expect(loadConfig({ ...env, WEBHOOK_TIMEOUT_SECONDS: '2' }).webhooks?.timeoutSeconds).toBe(2);
		expect(problems({ ...env, WEBHOOK_TIMEOUT_SECONDS: '0' }).WEBHOOK_TIMEOUT_SECONDS).toMatch(/positive/);
	});
	it('the fulfilment settings: treasury, grant amount and allowlist contract, function and event, each validated by name', () => {
		const config = loadConfig({
			...good,
			TREASURY_ADDRESS: '0x00000000000000000000000000000000000000AA',
			TOKEN_GRANT_AMOUNT: '100000000000000000000',
			ALLOWLIST_CONTRACT: '0x00000000000000000000000000000000000000bB',
			ALLOWLIST_FUNCTION: 'addToAllowlist(address[])',
			ALLOWLIST_EVENT: 'event Allowlisted(address indexed account)'
		});
		expect(config.fulfilment.treasuryAddress).toBe('0x00000000000000000000000000000000000000aa');
		expect(config.fulfilment.tokenGrantAmount).toBe(10n ** 20n);
		expect(config.fulfilment.allowlistContract).toBe('0x00000000000000000000000000000000000000bb');
		expect(config.fulfilment.allowlistFunction?.takesArray).toBe(true);
		expect(config.fulfilment.allowlistFunction?.abi.name).toBe('addToAllowlist');
		expect(config.fulfilment.allowlistEvent?.name).toBe('Allowlisted');
		expect(
			loadConfig({ ...good, ALLOWLIST_FUNCTION: 'function allow(address who)' }).fulfilment.allowlistFunction
				?.takesArray
		).toBe(false);
		expect(loadConfig(good).fulfilment).toEqual({
			treasuryAddress: null,
			tokenGrantAmount: null,
			allowlistContract: null,
			allowlistFunction: null,
			allowlistEvent: null
		});

		const bad = problems({
			...good,
			TREASURY_ADDRESS: '0x1234',
			TOKEN_GRANT_AMOUNT: '1.5',
			ALLOWLIST_CONTRACT: 'treasury.eth',
			ALLOWLIST_FUNCTION: 'addToAllowlist(uint256[])',
			ALLOWLIST_EVENT: 'Allowlisted(uint256 indexed id, address indexed account)'
		});
		expect(bad.TREASURY_ADDRESS).toMatch(/0x address/);
		expect(bad.TOKEN_GRANT_AMOUNT).toMatch(/whole number/);
		expect(bad.ALLOWLIST_CONTRACT).toMatch(/0x address/);
		expect(bad.ALLOWLIST_FUNCTION).toMatch(/address or address\[\]/);
		expect(bad.ALLOWLIST_EVENT).toMatch(/first indexed argument/);
		for (const fn of [
			'add(address,address)',
			'add()',
			'add(address',
			'isAllowed(address) view returns (bool)',
			'x'.repeat(400),
			'add(address)\0'
		])
			expect(problems({ ...good, ALLOWLIST_FUNCTION: fn }).ALLOWLIST_FUNCTION).toBeDefined();
		for (const ev of [
			'Allowlisted(address account)',
			'Allowlisted(address indexed a) anonymous',
			'function f(address)'
		])
			expect(problems({ ...good, ALLOWLIST_EVENT: ev }).ALLOWLIST_EVENT).toBeDefined();
		for (const amount of ['0', '-1', '1e18', String(2n ** 256n), ' 12 34'])
			expect(problems({ ...good, TOKEN_GRANT_AMOUNT: amount }).TOKEN_GRANT_AMOUNT).toBeDefined();
	});
});

describe('Vercel and its cron', () => {
	it('CRON_SECRET is off by default, at least 16 characters when set, and never printed', () => {
		expect(loadConfig(good).cronSecret).toBeNull();
		expect(loadConfig({ ...good, CRON_SECRET: 'x'.repeat(16) }).cronSecret).toBe('x'.repeat(16));
		const problem = problems({ ...good, CRON_SECRET: 'short-secret' }).CRON_SECRET;
		expect(problem).toMatch(/at least 16 characters/);
		expect(problem).not.toContain('short-secret');
	});

	it('on Vercel (VERCEL set) the embedded database is refused: DATABASE_URL is required, saying why', () => {
		expect(loadConfig(good).onVercel).toBe(false);
		expect(problems({ ...good, VERCEL: '1' }).DATABASE_URL).toMatch(/required on Vercel.*no lasting disk.*PGlite/);
		const onVercel = loadConfig({ ...good, VERCEL: '1', DATABASE_URL: 'postgres://db.example/portal' });
		expect(onVercel).toMatchObject({ onVercel: true, databaseUrl: 'postgres://db.example/portal' });
	});
});

describe('metrics configuration', () => {
	it('METRICS_TOKEN is off by default, at least 32 characters when set, and never printed', () => {
		expect(loadConfig(good).metricsToken).toBeNull();
		const token = randomBytes(24).toString('hex');
		expect(loadConfig({ ...good, METRICS_TOKEN: ` ${token} ` }).metricsToken).toBe(token);
		const short = 'short-metrics-token';
		try {
			loadConfig({ ...good, METRICS_TOKEN: short });
			expect.unreachable();
		} catch (err) {
			expect((err as ConfigError).problems).toEqual([
				{ variable: 'METRICS_TOKEN', problem: expect.stringMatching(/at least 32 characters/) as string }
			]);
			expect((err as Error).message).not.toContain(short);
		}
	});
});
