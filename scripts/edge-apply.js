#!/usr/bin/env node
// @ts-check
// Applies the edge rate-limit rules in deploy/vercel/ to a Vercel project's firewall (docs/edge-limits.md; specification:
// Limits > Unauthenticated endpoints). Log first, then rate_limit (429); never deny (403).
//
//   npm run edge:apply -- --mode log|enforce [--single-rule] [--dry-run]
//
// Environment: VERCEL_TOKEN, VERCEL_PROJECT_ID, VERCEL_TEAM_ID (optional),
// VERCEL_API_URL (optional, default https://api.vercel.com; tests point it at a fake on loopback).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as v from 'valibot';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RULE_FILES = {
	two: path.join(root, 'deploy/vercel/rules.json'),
	single: path.join(root, 'deploy/vercel/single-rule.json')
};
// What each mode writes into rateLimit.action: Vercel's "Log" and "Default (429)".
/** @type {Record<Mode, 'log' | 'rate_limit'>} */
const MODE_ACTION = { log: 'log', enforce: 'rate_limit' };
const EXIT = { ok: 0, usage: 1, refused: 3, api: 4 };

class Refusal extends Error {}

const usage = `Usage: npm run edge:apply -- --mode log|enforce [--single-rule] [--dry-run]

  --mode log       apply the rules with action Log: requests are counted and logged, none refused
  --mode enforce   switch them to rate_limit: over the limit the edge answers 429
  --single-rule    use the one-rule fallback (/api/ prefix) for plans that allow a single rule
  --dry-run        print the request instead of sending it (the current config is still read when
                   VERCEL_TOKEN is set, so the printed body is the one that would be sent)

Environment: VERCEL_TOKEN, VERCEL_PROJECT_ID, VERCEL_TEAM_ID (optional), VERCEL_API_URL (optional).
The action deny (403) is refused: the specification never allows it for these rules.`;

const Condition = v.object({
	type: v.literal('path'),
	op: v.picklist(['pre', 'eq']),
	value: v.pipe(v.string(), v.startsWith('/api/'))
});
const RateLimit = v.object({
	algo: v.picklist(['fixed_window', 'token_bucket']),
	// 10 s to 10 min on the lower plans, up to 1 h on the highest.
	window: v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(3600)),
	limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
	keys: v.pipe(v.array(v.string()), v.minLength(1)),
	action: v.picklist(['log', 'rate_limit'], 'rateLimit.action must be log or rate_limit (deny is refused)')
});
const Rule = v.object({
	id: v.pipe(v.string(), v.startsWith('rule_')),
	name: v.pipe(v.string(), v.minLength(1)),
	description: v.optional(v.string()),
	active: v.boolean(),
	conditionGroup: v.pipe(v.array(v.object({ conditions: v.pipe(v.array(Condition), v.minLength(1)) })), v.minLength(1)),
	action: v.object({
		mitigate: v.object({
			action: v.literal('rate_limit', 'mitigate.action must be rate_limit (deny is refused)'),
			rateLimit: RateLimit,
			redirect: v.optional(v.null()),
			actionDuration: v.optional(v.nullable(v.string()))
		})
	})
});
const RuleFile = v.object({ rules: v.pipe(v.array(Rule), v.minLength(1)) });

/** @typedef {v.InferOutput<typeof Rule>} RuleShape  a rule as committed under deploy/vercel/ */
/** @typedef {'log' | 'enforce'} Mode */

/**
 * A project's firewall config as Vercel's API returns it, in the parts read here (anything may be missing).
 * @typedef {object} FirewallConfig
 * @property {ExistingRule[]} [rules]
 * @property {unknown} [managedRules]
 * @property {unknown} [crs]
 * @property {{ id?: unknown, hostname?: unknown, ip?: unknown, notes?: unknown, action?: unknown }[]} [ips]
 */
/**
 * @typedef {object} ExistingRule
 * @property {string} [id]
 * @property {string} [name]
 * @property {string} [description]
 * @property {unknown} [active]
 * @property {unknown} [conditionGroup]
 * @property {unknown} [action]
 */

/**
 * Any "deny" anywhere in a rule: refused before any shape check, whatever field someone edited.
 * @param {unknown} value
 * @returns {boolean}
 */
function mentionsDeny(value) {
	if (typeof value === 'string') return value.trim().toLowerCase() === 'deny';
	if (Array.isArray(value)) return value.some(mentionsDeny);
	if (value && typeof value === 'object') return Object.values(value).some(mentionsDeny);
	return false;
}

/**
 * @param {string} file
 * @returns {RuleShape[]}
 */
export function loadRules(file) {
	/** @type {unknown} */
	let json;
	try {
		json = JSON.parse(readFileSync(file, 'utf8'));
	} catch (err) {
		throw new Refusal(
			`${path.relative(root, file)}: not readable JSON (${err instanceof Error ? err.message : String(err)})`
		);
	}
	if (mentionsDeny(/** @type {{ rules?: unknown } | null} */ (json)?.rules)) {
		throw new Refusal(
			`${path.relative(root, file)} asks for the action deny (403). Refused: these rules are never switched to Deny; use --mode enforce for rate_limit (429).`
		);
	}
	const parsed = v.safeParse(RuleFile, json);
	if (!parsed.success) {
		const issues = parsed.issues.map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`).join('; ');
		throw new Refusal(`${path.relative(root, file)} is not a rule file this script applies: ${issues}`);
	}
	return parsed.output.rules;
}

/**
 * The rules with the mode's action; every other field stays as committed.
 * @param {RuleShape[]} rules
 * @param {Mode} mode
 * @returns {RuleShape[]}
 */
export function rulesForMode(rules, mode) {
	const action = MODE_ACTION[mode];
	return rules.map((rule) => ({
		...rule,
		action: { mitigate: { ...rule.action.mitigate, rateLimit: { ...rule.action.mitigate.rateLimit, action } } }
	}));
}

/** @param {ExistingRule} r the fields of someone else's rule that a PUT takes back */
const pickRule = (r) => ({
	...(r.id ? { id: r.id } : {}),
	name: r.name,
	...(r.description !== undefined ? { description: r.description } : {}),
	active: r.active,
	conditionGroup: r.conditionGroup,
	action: r.action
});

/**
 * The PUT body: the project's current config with our rules put in place (in their old position, or
 * appended), the other variant's rules removed, and every rule of someone else kept as it was.
 * @param {FirewallConfig | null} current
 * @param {RuleShape[]} ours
 * @param {Set<string>} ourIdsOrNames
 */
export function mergeConfig(current, ours, ourIdsOrNames) {
	/** @param {ExistingRule} r */
	const isOurs = (r) => ourIdsOrNames.has(r.id ?? '') || ourIdsOrNames.has(r.name ?? '');
	const byKey = new Map(ours.map((r) => [r.id, r]));
	/** @type {Set<string>} */
	const placed = new Set();
	/** @type {(RuleShape | ReturnType<typeof pickRule>)[]} */
	const rules = [];
	for (const existing of current?.rules ?? []) {
		if (!isOurs(existing)) {
			rules.push(pickRule(existing));
			continue;
		}
		const replacement = byKey.get(existing.id ?? '') ?? ours.find((r) => r.name === existing.name);
		if (replacement && !placed.has(replacement.id)) {
			rules.push(replacement);
			placed.add(replacement.id);
		}
	}
	for (const rule of ours) if (!placed.has(rule.id)) rules.push(rule);
	/** @type {{ firewallEnabled: boolean, rules: typeof rules, managedRules?: unknown, crs?: unknown, ips?: unknown[] }} */
	const body = { firewallEnabled: true, rules };
	if (current?.managedRules) body.managedRules = current.managedRules;
	if (current?.crs) body.crs = current.crs;
	if (Array.isArray(current?.ips)) {
		body.ips = current.ips.map(({ id, hostname, ip, notes, action }) => ({ id, hostname, ip, notes, action }));
	}
	return body;
}

/** Every id and name of a rule in either committed variant. */
function allOurNames() {
	/** @type {Set<string>} */
	const names = new Set();
	for (const file of Object.values(RULE_FILES)) {
		try {
			/** @type {unknown} */
			const json = JSON.parse(readFileSync(file, 'utf8'));
			const { rules } = /** @type {{ rules?: ExistingRule[] }} */ (json);
			for (const r of rules ?? []) {
				if (r.id) names.add(r.id);
				if (r.name) names.add(r.name);
			}
		} catch {
			// An unreadable file is reported by loadRules for the variant in use.
		}
	}
	return names;
}

/** @param {RuleShape} rule */
function describe(rule) {
	const cond = rule.conditionGroup
		.flatMap((g) => g.conditions)
		.map((c) => `path ${c.op === 'pre' ? 'starts with' : 'equals'} ${c.value}`)
		.join(' and ');
	const rl = rule.action.mitigate.rateLimit;
	const then = rl.action === 'rate_limit' ? 'rate_limit (429)' : 'log (observe only)';
	return `${rule.name}: ${cond}; ${rl.limit} requests / ${rl.window} s, ${rl.algo}, key ${rl.keys.join('+')}; over the limit: ${then}`;
}

/**
 * What this script reads of Vercel's answers: an error, a firewall config, and after a PUT the active rules.
 * @typedef {FirewallConfig & {
 *   error?: { message?: string, code?: string },
 *   active?: { rules?: { id?: string, name?: string, action?: { mitigate?: { rateLimit?: { action?: string } } } }[] }
 * }} VercelAnswer
 */

/**
 * @typedef {object} ApiAnswer
 * @property {boolean} ok
 * @property {number} status  0 when the API could not be reached
 * @property {VercelAnswer | null} [json]  the answer's JSON (Vercel's shape, read defensively)
 * @property {string} [error]
 */

/**
 * @param {'GET' | 'PUT'} method
 * @param {string} url
 * @param {string} token
 * @param {unknown} [body]
 * @returns {Promise<ApiAnswer>}
 */
async function callApi(method, url, token, body) {
	let response;
	try {
		response = await fetch(url, {
			method,
			headers: {
				Authorization: `Bearer ${token}`,
				Accept: 'application/json',
				...(body ? { 'Content-Type': 'application/json' } : {})
			},
			body: body ? JSON.stringify(body) : undefined,
			signal: AbortSignal.timeout(30_000)
		});
	} catch (err) {
		const { cause, message } = /** @type {{ cause?: { code?: string, message?: string }, message?: string }} */ (err);
		return {
			ok: false,
			status: 0,
			error: `could not reach ${new URL(url).origin}: ${cause?.code ?? cause?.message ?? message}`
		};
	}
	const text = await response.text();
	/** @type {VercelAnswer | null} */
	let json = null;
	try {
		/** @type {unknown} */
		const parsed = text ? JSON.parse(text) : null;
		json = /** @type {VercelAnswer | null} */ (parsed);
	} catch {
		// Not JSON: reported by status only.
	}
	const error = json?.error?.message ?? json?.error?.code ?? (response.ok ? undefined : text.slice(0, 200));
	return { ok: response.ok, status: response.status, json, error };
}

/**
 * @param {string[]} [argv]
 * @param {Record<string, string | undefined>} [env]
 * @param {Pick<Console, 'log' | 'error'>} [out]
 * @returns {Promise<number>} the exit code
 */
export async function main(argv = process.argv.slice(2), env = process.env, out = console) {
	let args;
	try {
		args = parseArgs({
			args: argv,
			options: {
				mode: { type: 'string' },
				'single-rule': { type: 'boolean', default: false },
				'dry-run': { type: 'boolean', default: false },
				help: { type: 'boolean', short: 'h', default: false }
			},
			strict: true
		}).values;
	} catch (err) {
		out.error(`${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
		return EXIT.usage;
	}
	if (args.help) {
		out.log(usage);
		return EXIT.ok;
	}
	const mode = args.mode?.trim().toLowerCase();
	if (mode === 'deny') {
		out.error('Refused: deny answers 403 and is never used for these rules. Use --mode enforce (rate_limit, 429).');
		return EXIT.refused;
	}
	if (mode !== 'log' && mode !== 'enforce') {
		out.error(`--mode must be log or enforce\n\n${usage}`);
		return EXIT.usage;
	}

	const dryRun = args['dry-run'];
	const token = env.VERCEL_TOKEN?.trim() || undefined;
	const projectId = env.VERCEL_PROJECT_ID?.trim();
	const teamId = env.VERCEL_TEAM_ID?.trim() || undefined;
	const missing = [!projectId && 'VERCEL_PROJECT_ID', !token && !dryRun && 'VERCEL_TOKEN'].filter(Boolean);
	if (missing.length) {
		out.error(`Missing ${missing.join(' and ')}.\n\n${usage}`);
		return EXIT.usage;
	}
	let apiBase;
	try {
		apiBase = new URL(env.VERCEL_API_URL?.trim() || 'https://api.vercel.com');
	} catch {
		out.error('VERCEL_API_URL is not a URL.');
		return EXIT.usage;
	}

	let ours;
	try {
		ours = rulesForMode(loadRules(args['single-rule'] ? RULE_FILES.single : RULE_FILES.two), mode);
	} catch (err) {
		if (err instanceof Refusal) {
			out.error(`Refused: ${err.message}`);
			return EXIT.refused;
		}
		throw err;
	}
	// Never sent, whatever the file or the merge did: the last guard before the network.
	if (mentionsDeny(ours)) {
		out.error('Refused: a rule would be sent with the action deny.');
		return EXIT.refused;
	}

	const query = new URLSearchParams({ projectId: projectId ?? '' });
	if (teamId) query.set('teamId', teamId);
	const activeUrl = new URL(`/v1/security/firewall/config/active?${query}`, apiBase).toString();
	const putUrl = new URL(`/v1/security/firewall/config?${query}`, apiBase).toString();

	let current = null;
	if (token) {
		const read = await callApi('GET', activeUrl, token);
		if (read.ok) current = read.json ?? null;
		else if (read.status !== 404) {
			out.error(`Reading the current firewall config failed (HTTP ${read.status}): ${read.error ?? 'no detail'}`);
			return EXIT.api;
		}
	}
	const body = mergeConfig(current, ours, allOurNames());
	const others = body.rules.length - ours.length;

	out.log(`${dryRun ? 'Would apply' : 'Applying'} ${ours.length} rule(s) in mode ${mode}:`);
	for (const rule of ours) out.log(`  - ${describe(rule)}`);
	out.log(`  (${others} other rule(s) of the project kept as they are${current ? '' : '; current config not read'})`);

	if (dryRun) {
		out.log('\nRequest (dry run, nothing sent):');
		out.log(`PUT ${putUrl}`);
		out.log('Authorization: Bearer <redacted>');
		out.log('Content-Type: application/json');
		out.log('');
		out.log(JSON.stringify(body, null, 2));
		return EXIT.ok;
	}

	const written = await callApi('PUT', putUrl, token ?? '', body);
	if (!written.ok) {
		out.error(`Vercel refused the firewall config (HTTP ${written.status}): ${written.error ?? 'no detail'}`);
		return EXIT.api;
	}
	const active = written.json?.active?.rules;
	if (Array.isArray(active)) {
		for (const rule of ours) {
			const got = active.find((r) => r.id === rule.id || r.name === rule.name);
			const action = got?.action?.mitigate?.rateLimit?.action;
			if (action !== rule.action.mitigate.rateLimit.action) {
				out.error(`Applied, but the active config shows ${rule.name} with action ${action ?? '(missing)'}.`);
				return EXIT.api;
			}
		}
	}
	out.log(
		mode === 'enforce'
			? '\nDone: over the limit the edge now answers 429. Confirm with `npm run edge:check -- <site-url>` (and --path /api/community-pulse).'
			: '\nDone: the rules count and log; nothing is refused yet. Watch the firewall log, then run --mode enforce.'
	);
	return EXIT.ok;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	process.exitCode = await main();
}
