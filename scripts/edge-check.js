#!/usr/bin/env node
// @ts-check
// Checks that an edge rate-limit rule is switched (docs/edge-limits.md; specification: Unauthenticated endpoints,
// rule 3): sends limit + 1 requests and reports whether the edge answers 429, 403 (deny) or nothing.
//
//   npm run edge:check -- <base-url> [--community-pulse | --path <path>] [--limit 100]
//
// Exit codes: 0 active (429), 2 not active, 3 wrong action (403), 1 usage error or site unreachable.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const EXIT = { active: 0, error: 1, notActive: 2, deny: 3 };

const usage = `Usage: npm run edge:check -- <base-url> [--community-pulse | --path <path>] [--limit <n>]

Sends limit + 1 GET requests (default 101 to /api/auth/nonce) from this machine and reports:
  exit 0  active: the edge answered 429
  exit 2  not active: every request passed (no rule, the rule still in Log mode, or a window
          boundary split the burst: run it again)
  exit 3  wrong action: the edge answered 403 (deny); switch the rule to rate_limit (429)
  exit 1  usage error, or the site could not be reached
Each run uses up this address's allowance on that path for the current window.`;

/** @param {number[]} statuses */
function tally(statuses) {
	/** @type {Map<number, number>} */
	const counts = new Map();
	for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
	return [...counts].map(([s, n]) => `${s}×${n}`).join(', ');
}

/**
 * Why a request failed: the network error's code or message when fetch gives one.
 * @param {unknown} err
 */
function failure(err) {
	const { cause, message } = /** @type {{ cause?: { code?: string, message?: string }, message?: string }} */ (err);
	return cause?.code ?? cause?.message ?? message;
}

/**
 * @param {string[]} [argv]
 * @param {Pick<Console, 'log' | 'error'>} [out]
 * @returns {Promise<number>} the exit code
 */
export async function main(argv = process.argv.slice(2), out = console) {
	let parsed;
	try {
		parsed = parseArgs({
			args: argv,
			allowPositionals: true,
			options: {
				path: { type: 'string' },
				'community-pulse': { type: 'boolean', default: false },
				limit: { type: 'string', default: '100' },
				help: { type: 'boolean', short: 'h', default: false }
			},
			strict: true
		});
	} catch (err) {
		out.error(`${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
		return EXIT.error;
	}
	const { values, positionals } = parsed;
	if (values.help) {
		out.log(usage);
		return EXIT.active;
	}
	if (positionals.length !== 1) {
		out.error(usage);
		return EXIT.error;
	}
	let base;
	try {
		base = new URL(positionals[0] ?? '');
		if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('scheme');
	} catch {
		out.error(`Not an http(s) URL: ${positionals[0]}\n\n${usage}`);
		return EXIT.error;
	}
	if (values.path && values['community-pulse']) {
		out.error('Give --path or --community-pulse, not both.');
		return EXIT.error;
	}
	const limit = Number(values.limit);
	if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
		out.error('--limit must be a whole number from 1 to 10000.');
		return EXIT.error;
	}
	const target = values['community-pulse'] ? '/api/community-pulse' : (values.path ?? '/api/auth/nonce');
	if (!target.startsWith('/')) {
		out.error('--path must start with /');
		return EXIT.error;
	}
	const url = new URL(target, base).toString();
	const total = limit + 1;

	out.log(`Sending up to ${total} GET requests to ${url} ...`);
	/** @type {number[]} */
	const statuses = [];
	for (let i = 1; i <= total; i++) {
		let response;
		try {
			response = await fetch(url, { redirect: 'manual', cache: 'no-store', signal: AbortSignal.timeout(15_000) });
			await response.arrayBuffer();
		} catch (err) {
			out.error(`Request #${i} failed: ${failure(err)}`);
			return EXIT.error;
		}
		statuses.push(response.status);
		if (response.status === 429) {
			out.log(
				`ACTIVE: request #${i} was answered 429 by the edge (rate_limit). Passed before it: ${tally(statuses.slice(0, -1)) || 'none'}.`
			);
			if (i <= limit) {
				out.log(
					`Note: 429 came before request ${total}: earlier requests from this address were already counted in this window.`
				);
			}
			return EXIT.active;
		}
		if (response.status === 403) {
			out.log(
				`WRONG ACTION: request #${i} was answered 403. The rule denies instead of rate limiting; switch it to rate_limit (429): npm run edge:apply -- --mode enforce.`
			);
			if (i === 1)
				out.log('Note: the very first request was refused: check for deployment protection or an IP block too.');
			return EXIT.deny;
		}
	}
	out.log(
		`NOT ACTIVE: all ${total} requests passed (${tally(statuses)}). No rule on this path, the rule still in Log mode, or a fixed-window boundary split the burst (run it again).`
	);
	return EXIT.notActive;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	process.exitCode = await main();
}
