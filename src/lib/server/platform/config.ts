import path from 'node:path';
import * as v from 'valibot';
import { SECRET_ADVICE, guessableSecretCheck } from './secret-strength';
import { communityTokenFrom, WALLETCONNECT_PROJECT_ID, type CommunityToken } from '$lib/chain/chain';
import { parseSafeAppOrigins } from '../../../../deploy/security-headers.js';
import type { AbiEvent } from 'viem';
import { isTimeZone } from '$lib/platform/time-zone';
import { parseAllowlistEvent, parseAllowlistFunction, type AllowlistFunction } from './contract-signatures';
import { loadNotificationConfig, type NotificationConfig } from './notification-config';

/** The server's validated configuration (docs/configuration.md). */
/** FILES_DIR (default <PORTAL_DATA_DIR>/files), or S3-compatible storage when the four S3_ variables are set. */
export interface FilesConfig {
	dir: string;
	s3: { endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string; region: string } | null;
}

export interface Config {
	sessionPassword: string;
	/** Older passwords, still accepted when reading cookies (rotation). */
	sessionPasswordsPrevious: string[];
	sessionTtlSeconds: number;
	/** Lowercase `host` or `host:port` entries. */
	siweAllowedDomains: string[];
	/** Lowercase `0x` addresses. */
	adminAddresses: ReadonlySet<string>;
	/** Lowercase `0x` addresses of REVIEWER_ADDRESSES (admins are reviewers too, without being listed). */
	reviewerAddresses: ReadonlySet<string>;
	/** REVIEW_QUORUM: current votes an application needs before the review table marks it ready. */
	reviewQuorum: number;
	databaseUrl: string | null;
	pgliteDataDir: string;
	/** BACKUP_KEEP: daily backups kept in backupDir; 0: none made. */
	backupKeep: number;
	/**
	 * BACKUP_DIR, or where daily backups go by default: <PGLITE_DATA_DIR>/backups for the embedded
	 * database in a folder, <working folder>/backups on a Postgres server (under systemd the working
	 * folder is its StateDirectory); null for an embedded database in memory.
	 */
	backupDir: string | null;
	/** Where the files of `file` answers go (issue 58, src/lib/server/files/README.md). */
	files: FilesConfig;
	communityPulseRepo: string | null;
	githubToken: string | null;
	githubApiUrl: string;
	communityPulseTtlSeconds: number;
	/** COMMUNITY_TIME_ZONE: the IANA zone an admin's time without an offset is read in (default UTC). */
	communityTimeZone: string;
	token: CommunityToken | null;
	polygonRpcUrl: string | null;
	/** An Ethereum mainnet JSON-RPC endpoint: team members' ENS names (reverse, verified forward); null: none. */
	ensRpcUrl: string | null;
	/** WalletConnect Cloud project id (PUBLIC_WALLETCONNECT_PROJECT_ID): 32 lowercase hex digits, or null (not offered). */
	walletConnectProjectId: string | null;
	/** Signed webhooks (docs/webhooks.md); null when WEBHOOK_URLS is unset. */
	webhooks: WebhookConfig | null;
	/**
	 * Origins that may frame the portal as a Safe App (SAFE_APP_ORIGINS, decision 0022); empty: none,
	 * `frame-ancestors 'none'` and a SameSite=Lax cookie.
	 */
	safeAppOrigins: string[];
	/** The Bearer token Vercel Cron sends to GET /api/cron/webhooks (CRON_SECRET); null: that route is hidden. */
	cronSecret: string | null;
	/** Running as a Vercel function (Vercel sets VERCEL=1): no lasting disk, no process between requests. */
	onVercel: boolean;
	/** The bearer token that opens GET /metrics (METRICS_TOKEN); null: /metrics answers 404. Never printed. */
	metricsToken: string | null;
	/** The Safe batches and how their steps are found on chain (docs/fulfilment.md); each part null when unset. */
	fulfilment: FulfilmentConfig;
	/** Web Push and e-mail for applicants (docs/notifications.md). */
	notifications: NotificationConfig;
}

export interface FulfilmentConfig {
	/** TREASURY_ADDRESS: the community's Safe, which sends the token. */
	treasuryAddress: `0x${string}` | null;
	/** TOKEN_GRANT_AMOUNT in the token's base units. */
	tokenGrantAmount: bigint | null;
	allowlistContract: `0x${string}` | null;
	allowlistFunction: AllowlistFunction | null;
	allowlistEvent: AbiEvent | null;
}

export interface WebhookConfig {
	/** Each https:// (or loopback http://) URL, once, in the order given. */
	urls: string[];
	/** `whsec_` + base64: the Standard Webhooks signing secret. Never printed. */
	secret: string;
	/** Seconds one delivery attempt may take. */
	timeoutSeconds: number;
}

export class ConfigError extends Error {
	constructor(readonly problems: { variable: string; problem: string }[]) {
		super(
			'Invalid configuration:\n' + problems.map(({ variable, problem }) => `  - ${variable}: ${problem}`).join('\n')
		);
		this.name = 'ConfigError';
	}
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, 'i');
const IPV6 = /^\[[0-9a-f:.]+\]$/i;

/** Splits a comma-separated list: blanks around entries trimmed, empty entries ignored. */
export function splitList(value: string): string[] {
	return value
		.split(',')
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}

/** Why `entry` is not a `host` or `host:port`, or null when it is one. */
function domainProblem(entry: string): string | null {
	if (entry.includes('://')) return `"${entry}" has a scheme; give only host or host:port`;
	if (/[/?#]/.test(entry)) return `"${entry}" has a path; give only host or host:port`;
	if (entry.includes('@')) return `"${entry}" has user info; give only host or host:port`;
	if (entry.includes('*')) return `"${entry}" has a wildcard; list each host`;
	const match = /^(\[[^\]]*\]|[^:]+)(?::(\d+))?$/.exec(entry);
	if (!match) return `"${entry}" is not a host or host:port`;
	const [, host = '', port] = match;
	if (!HOSTNAME.test(host) && !IPV6.test(host)) return `"${entry}" is not a valid host name`;
	if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
		return `"${entry}" has a port outside 1-65535`;
	}
	return null;
}

/** Why the `index`th WEBHOOK_URLS entry is refused; by position, since a URL may carry a token. */
function webhookUrlProblem(entry: string, index: number): string | null {
	const which = `entry ${index + 1}`;
	let url: URL;
	try {
		url = new URL(entry);
	} catch {
		return `${which} is not a URL`;
	}
	if (url.username || url.password) return `${which} has user info; put credentials in the path or query instead`;
	if (url.protocol === 'https:') return null;
	if (url.protocol !== 'http:') return `${which} must be an https:// URL`;
	return isLoopback(url.hostname) ? null : `${which} uses http:// for a host that is not loopback; use https://`;
}

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

const WEBHOOK_SECRET_FORMAT = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** Bytes of key in a `whsec_` + base64 secret; 0 when it is not one. */
function webhookSecretBytes(secret: string): number {
	const base64 = WEBHOOK_SECRET_FORMAT.exec(secret)?.[1];
	return base64 ? Buffer.from(base64, 'base64').length : 0;
}

const optionalText = v.optional(v.pipe(v.string(), v.trim()), '');
const optionalAddress = v.pipe(
	optionalText,
	v.check((a) => a === '' || ADDRESS.test(a), 'must be a 0x address of 40 hex digits')
);

function positiveInteger(fallback: number) {
	return v.pipe(
		optionalText,
		v.transform((raw) => (raw === '' ? String(fallback) : raw)),
		v.regex(/^[1-9]\d*$/, 'must be a positive whole number'),
		v.transform(Number),
		v.safeInteger('must be a positive whole number')
	);
}

function httpUrl(message: string) {
	return v.pipe(
		v.string(),
		v.check((raw) => {
			try {
				return ['http:', 'https:'].includes(new URL(raw).protocol);
			} catch {
				return false;
			}
		}, message)
	);
}

/** Checks every entry and reports the bad ones by value (for non-secret lists only). */
function listOf(problemOf: (entry: string) => string | null) {
	return v.pipe(
		optionalText,
		v.transform(splitList),
		v.check(
			(list: string[]) => list.every((entry) => problemOf(entry) === null),
			(issue) => issue.input.map(problemOf).filter(Boolean).join('; ')
		)
	);
}

/** ADMIN_ADDRESSES and REVIEWER_ADDRESSES: comma-separated 0x addresses, compared lowercase. */
const addressSet = v.pipe(
	listOf((entry) => (ADDRESS.test(entry) ? null : `"${entry}" is not a 0x address of 40 hex digits`)),
	v.transform((list) => new Set(list.map((a) => a.toLowerCase())) as ReadonlySet<string>)
);

/** "1", "1 and 3", "1, 2 and 4": the positions of bad entries in a secret list (never their values). */
const positions = (list: number[]) =>
	list.length === 1 ? `${list[0]}` : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;

/** The environment's schema; `guessable` rates secrets (docs/configuration.md "Session secrets"). */
const envSchema = (guessable: (secret: string) => boolean) =>
	v.object({
		SESSION_PASSWORD: v.pipe(
			optionalText,
			v.nonEmpty(`is required: ${SECRET_ADVICE}`),
			v.check((s) => s.length >= 32, `must be at least 32 characters; ${SECRET_ADVICE}`),
			v.check(
				(s) => !guessable(s),
				`is guessable (a strength estimator rates it below its top score); ${SECRET_ADVICE}`
			)
		),
		SESSION_PASSWORD_PREVIOUS: v.pipe(
			optionalText,
			v.transform(splitList),
			v.check(
				(list) => list.every((p) => p.length >= 32),
				'every comma-separated entry must be at least 32 characters'
			),
			v.check(
				(list) => !list.some(guessable),
				(issue) => {
					const bad = issue.input.flatMap((p, i) => (guessable(p) ? [i + 1] : []));
					return `entr${bad.length === 1 ? 'y' : 'ies'} ${positions(bad)} ${bad.length === 1 ? 'is' : 'are'} guessable: a previous password opens sessions as the current one does; drop ${bad.length === 1 ? 'it' : 'them'}, or ${SECRET_ADVICE}`;
				}
			)
		),
		SESSION_TTL_SECONDS: positiveInteger(1_209_600),
		SIWE_ALLOWED_DOMAINS: v.pipe(
			listOf(domainProblem),
			v.check((list) => list.length > 0, 'is required: comma-separated host or host:port entries'),
			v.transform((list) => [...new Set(list.map((d) => d.toLowerCase()))])
		),
		ADMIN_ADDRESSES: addressSet,
		REVIEWER_ADDRESSES: addressSet,
		REVIEW_QUORUM: positiveInteger(2),
		DATABASE_URL: v.pipe(
			optionalText,
			v.check(
				(url) => url === '' || /^postgres(ql)?:\/\/[^\s]+$/.test(url),
				'must be a postgres:// or postgresql:// URL'
			)
		),
		PGLITE_DATA_DIR: optionalText,
		BACKUP_DIR: optionalText,
		FILES_DIR: optionalText,
		PORTAL_DATA_DIR: optionalText,
		S3_ENDPOINT: v.pipe(
			optionalText,
			v.check((url) => url === '' || /^https?:\/\/[^\s]+$/.test(url), 'must be an http:// or https:// URL')
		),
		S3_BUCKET: optionalText,
		S3_ACCESS_KEY_ID: optionalText,
		S3_SECRET_ACCESS_KEY: optionalText,
		S3_REGION: optionalText,
		STATE_DIRECTORY: optionalText,
		BACKUP_KEEP: v.pipe(
			optionalText,
			v.transform((raw) => (raw === '' ? '7' : raw)),
			v.regex(/^\d{1,3}$/, 'must be a whole number of backups to keep (0 turns daily backups off)'),
			v.transform(Number)
		),
		COMMUNITY_PULSE_REPO: v.pipe(
			optionalText,
			v.check((repo) => repo === '' || /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(repo), 'must be owner/name')
		),
		GITHUB_TOKEN: optionalText,
		GITHUB_API_URL: v.pipe(
			optionalText,
			v.transform((url) => (url || 'https://api.github.com').replace(/\/+$/, '')),
			httpUrl('must be an http(s) URL')
		),
		COMMUNITY_PULSE_TTL_SECONDS: positiveInteger(300),
		COMMUNITY_TIME_ZONE: v.pipe(
			optionalText,
			v.transform((zone) => zone || 'UTC'),
			v.check(
				isTimeZone,
				(issue) =>
					`"${issue.input}" is not a time zone this server knows: use an IANA name such as Europe/Berlin or America/New_York (default UTC)`
			)
		),
		PUBLIC_TOKEN_ADDRESS: v.pipe(
			optionalText,
			v.check((a) => a === '' || ADDRESS.test(a), 'must be a 0x address of 40 hex digits')
		),
		PUBLIC_TOKEN_SYMBOL: v.pipe(
			optionalText,
			v.check((s) => s.length <= 11, 'must be at most 11 characters (EIP-747)')
		),
		PUBLIC_TOKEN_DECIMALS: v.pipe(
			optionalText,
			v.check((d) => d === '' || (/^\d{1,2}$/.test(d) && Number(d) <= 36), 'must be a whole number from 0 to 36')
		),
		PUBLIC_TOKEN_IMAGE: v.pipe(
			optionalText,
			v.check((url) => url === '' || /^https?:\/\/\S+$/.test(url), 'must be an http(s) URL')
		),
		POLYGON_RPC_URL: v.pipe(
			optionalText,
			v.check((url) => url === '' || /^https?:\/\/\S+$/.test(url), 'must be an http(s) URL')
		),
		ENS_RPC_URL: v.pipe(
			optionalText,
			v.check((url) => url === '' || /^https?:\/\/\S+$/.test(url), 'must be an http(s) URL')
		),
		PUBLIC_WALLETCONNECT_PROJECT_ID: v.pipe(
			optionalText,
			v.check(
				(id) => id === '' || WALLETCONNECT_PROJECT_ID.test(id),
				'must be a WalletConnect Cloud project id: 32 lowercase hex digits'
			)
		),
		WEBHOOK_URLS: v.pipe(
			optionalText,
			v.transform(splitList),
			v.check(
				(list: string[]) => list.every((entry, i) => webhookUrlProblem(entry, i) === null),
				(issue) => issue.input.map(webhookUrlProblem).filter(Boolean).join('; ')
			),
			v.transform((list) => [...new Set(list.map((entry) => new URL(entry).href))])
		),
		WEBHOOK_SECRET: v.pipe(
			optionalText,
			v.check(
				(secret) => secret === '' || webhookSecretBytes(secret) >= 24,
				'must be whsec_ followed by the base64 of at least 24 random bytes'
			)
		),
		WEBHOOK_TIMEOUT_SECONDS: positiveInteger(10),
		CRON_SECRET: v.pipe(
			optionalText,
			v.check((secret) => secret === '' || secret.length >= 16, 'must be at least 16 characters: a random string')
		),
		TREASURY_ADDRESS: optionalAddress,
		TOKEN_GRANT_AMOUNT: v.pipe(
			optionalText,
			v.check(
				(n) => n === '' || (/^[1-9]\d{0,77}$/.test(n) && BigInt(n) < 2n ** 256n),
				'must be a positive whole number of base units (no decimal point), below 2^256'
			)
		),
		ALLOWLIST_CONTRACT: optionalAddress,
		ALLOWLIST_FUNCTION: v.pipe(
			optionalText,
			v.check(
				(raw) => raw === '' || typeof parseAllowlistFunction(raw) !== 'string',
				(issue) => parseAllowlistFunction(issue.input) as string
			)
		),
		ALLOWLIST_EVENT: v.pipe(
			optionalText,
			v.check(
				(raw) => raw === '' || typeof parseAllowlistEvent(raw) !== 'string',
				(issue) => parseAllowlistEvent(issue.input) as string
			)
		),
		SAFE_APP_ORIGINS: v.pipe(
			optionalText,
			v.check(
				(raw) => originsProblem(raw) === null,
				(issue) => originsProblem(issue.input) ?? ''
			),
			v.transform((raw) => parseSafeAppOrigins(raw))
		),
		METRICS_TOKEN: v.pipe(
			optionalText,
			v.check((token) => token === '' || token.length >= 32, 'must be at least 32 characters (openssl rand -hex 32)')
		)
	});

/**
 * systemd's StateDirectory when the server runs as the unit (systemd sets STATE_DIRECTORY), or null:
 * there the defaults live in it, so that an EnvironmentFile's empty `PGLITE_DATA_DIR=` still means the
 * unit's folder (deploy/systemd/member-portal.service).
 */
const stateFolder = (stateDirectory: string): string | null => stateDirectory.split(':')[0] || null;

/** PGLITE_DATA_DIR, or its default: <StateDirectory>/pglite under systemd, .data/pglite otherwise. */
function pgliteDataDirOf(e: { PGLITE_DATA_DIR: string; STATE_DIRECTORY: string }): string {
	const state = stateFolder(e.STATE_DIRECTORY);
	return e.PGLITE_DATA_DIR || (state ? path.join(state, 'pglite') : '.data/pglite');
}

/** BACKUP_DIR, or its default by engine (Config.backupDir). */
function backupDirOf(e: {
	BACKUP_DIR: string;
	DATABASE_URL: string;
	PGLITE_DATA_DIR: string;
	STATE_DIRECTORY: string;
}) {
	if (e.BACKUP_DIR) return e.BACKUP_DIR;
	if (e.DATABASE_URL) return path.join(stateFolder(e.STATE_DIRECTORY) ?? '.', 'backups');
	const dataDir = pgliteDataDirOf(e);
	return dataDir.startsWith('memory://') ? null : path.join(dataDir, 'backups');
}

const S3_VARIABLES = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const;

/** FILES_DIR or its default (<StateDirectory>/files under systemd, else <PORTAL_DATA_DIR>/files), and S3 when all four are set. */
function filesOf(
	e: Record<(typeof S3_VARIABLES)[number] | 'S3_REGION' | 'FILES_DIR' | 'PORTAL_DATA_DIR' | 'STATE_DIRECTORY', string>
): FilesConfig {
	const state = stateFolder(e.STATE_DIRECTORY);
	const dir = e.FILES_DIR || (state ? path.join(state, 'files') : path.join(e.PORTAL_DATA_DIR || '.data', 'files'));
	const s3 = S3_VARIABLES.every((k) => e[k] !== '')
		? {
				endpoint: e.S3_ENDPOINT,
				bucket: e.S3_BUCKET,
				accessKeyId: e.S3_ACCESS_KEY_ID,
				secretAccessKey: e.S3_SECRET_ACCESS_KEY,
				region: e.S3_REGION || 'us-east-1'
			}
		: null;
	return { dir, s3 };
}

/** Why SAFE_APP_ORIGINS is refused (every bad entry, by value: origins are not secret), or null. */
function originsProblem(raw: string): string | null {
	try {
		parseSafeAppOrigins(raw);
		return null;
	} catch (err) {
		return err instanceof Error ? err.message : String(err);
	}
}

/**
 * Reads and validates the environment once. Throws a ConfigError that names every bad variable;
 * no message ever contains a variable's value except non-secret list entries.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
	const EnvSchema = envSchema(guessableSecretCheck());
	const result = v.safeParse(EnvSchema, env, { abortEarly: false });
	const problems: { variable: string; problem: string }[] = [];
	if (!result.success) {
		for (const issue of result.issues) {
			const key = issue.path?.[0]?.key;
			const variable = typeof key === 'string' ? key : 'environment';
			// A valibot message may quote the received value; ours never do, so only keep ours.
			const problem = issue.type === 'string' ? 'must be a string' : issue.message;
			if (!problems.some((p) => p.variable === variable)) problems.push({ variable, problem });
		}
	}
	const e = result.output as v.InferOutput<ReturnType<typeof envSchema>>;
	if (result.success) {
		const tokenParts = [e.PUBLIC_TOKEN_ADDRESS, e.PUBLIC_TOKEN_SYMBOL, e.PUBLIC_TOKEN_DECIMALS];
		if (tokenParts.some((p) => p !== '') && tokenParts.some((p) => p === '')) {
			problems.push({
				variable: 'PUBLIC_TOKEN_ADDRESS',
				problem:
					'PUBLIC_TOKEN_ADDRESS, PUBLIC_TOKEN_SYMBOL and PUBLIC_TOKEN_DECIMALS go together: set all three or none'
			});
		}
	}
	const webhookUrlsSet = splitList(String(env.WEBHOOK_URLS ?? '')).length > 0;
	if (webhookUrlsSet && String(env.WEBHOOK_SECRET ?? '').trim() === '') {
		problems.push({
			variable: 'WEBHOOK_SECRET',
			problem: 'is required when WEBHOOK_URLS is set: whsec_ followed by the base64 of at least 24 random bytes'
		});
	}
	// S3 storage (issue 58): all four, or none (then files go to FILES_DIR); named by the first missing one.
	const s3Set = S3_VARIABLES.filter((k) => String(env[k] ?? '').trim() !== '');
	if (s3Set.length > 0 && s3Set.length < S3_VARIABLES.length) {
		const missing = S3_VARIABLES.find((k) => !s3Set.includes(k))!;
		problems.push({
			variable: missing,
			problem: `is required when ${s3Set.join(', ')} is set: set all of ${S3_VARIABLES.join(', ')} or none`
		});
	}
	const onVercel = Boolean(String(env.VERCEL ?? '').trim());
	if (
		onVercel &&
		String(env.DATABASE_URL ?? '').trim() === '' &&
		!problems.some((p) => p.variable === 'DATABASE_URL')
	) {
		problems.push({
			variable: 'DATABASE_URL',
			problem:
				'is required on Vercel: its functions have no lasting disk, so the embedded database (PGlite) would lose every write; set a postgres:// URL (README, "What differs on Vercel")'
		});
	}
	const notifications = loadNotificationConfig(
		env,
		result.success ? e.SIWE_ALLOWED_DOMAINS : splitList(String(env.SIWE_ALLOWED_DOMAINS ?? '')),
		problems
	);
	if (problems.length > 0) throw new ConfigError(problems);

	return {
		sessionPassword: e.SESSION_PASSWORD,
		sessionPasswordsPrevious: e.SESSION_PASSWORD_PREVIOUS,
		sessionTtlSeconds: e.SESSION_TTL_SECONDS,
		siweAllowedDomains: e.SIWE_ALLOWED_DOMAINS,
		adminAddresses: e.ADMIN_ADDRESSES,
		reviewerAddresses: e.REVIEWER_ADDRESSES,
		reviewQuorum: e.REVIEW_QUORUM,
		databaseUrl: e.DATABASE_URL || null,
		pgliteDataDir: pgliteDataDirOf(e),
		backupKeep: e.BACKUP_KEEP,
		backupDir: backupDirOf(e),
		files: filesOf(e),
		communityPulseRepo: e.COMMUNITY_PULSE_REPO || null,
		githubToken: e.GITHUB_TOKEN || null,
		githubApiUrl: e.GITHUB_API_URL,
		communityPulseTtlSeconds: e.COMMUNITY_PULSE_TTL_SECONDS,
		communityTimeZone: e.COMMUNITY_TIME_ZONE,
		// Validated above; read as the browser reads it, so that both sides hold one shape.
		token: communityTokenFrom(env),
		polygonRpcUrl: e.POLYGON_RPC_URL || null,
		ensRpcUrl: e.ENS_RPC_URL || null,
		walletConnectProjectId: e.PUBLIC_WALLETCONNECT_PROJECT_ID || null,
		webhooks:
			e.WEBHOOK_URLS.length > 0
				? { urls: e.WEBHOOK_URLS, secret: e.WEBHOOK_SECRET, timeoutSeconds: e.WEBHOOK_TIMEOUT_SECONDS }
				: null,
		safeAppOrigins: e.SAFE_APP_ORIGINS,
		cronSecret: e.CRON_SECRET || null,
		onVercel,
		metricsToken: e.METRICS_TOKEN || null,
		fulfilment: {
			treasuryAddress: (e.TREASURY_ADDRESS.toLowerCase() as `0x${string}`) || null,
			tokenGrantAmount: e.TOKEN_GRANT_AMOUNT ? BigInt(e.TOKEN_GRANT_AMOUNT) : null,
			allowlistContract: (e.ALLOWLIST_CONTRACT.toLowerCase() as `0x${string}`) || null,
			allowlistFunction: e.ALLOWLIST_FUNCTION
				? (parseAllowlistFunction(e.ALLOWLIST_FUNCTION) as AllowlistFunction)
				: null,
			allowlistEvent: e.ALLOWLIST_EVENT ? (parseAllowlistEvent(e.ALLOWLIST_EVENT) as AbiEvent) : null
		},
		notifications
	};
}
