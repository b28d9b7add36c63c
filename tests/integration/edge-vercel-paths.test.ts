// The Vercel rules against the odd spellings of the limited paths (docs/edge-limits.md "Path
// spellings"). There is no Vercel here: Vercel documents its `path` as the normalised request path,
// but not exactly how it normalises, so each spelling the portal routes to a limited endpoint must
// match its rule under every plausible reading of the path.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../helpers/json';
import { AUTH_SPELLINGS, PULSE_SPELLINGS } from '../helpers/path-spellings';

interface Condition {
	type: string;
	op: string;
	value: string;
}
interface Rule {
	id: string;
	conditionGroup: { conditions: Condition[] }[];
}
const rulesOf = (file: string) => parseJson<{ rules: Rule[] }>(readFileSync(file, 'utf8')).rules;
const [auth, pulse] = rulesOf('deploy/vercel/rules.json');
const [single] = rulesOf('deploy/vercel/single-rule.json');

const BASE = 'http://portal.example';
const decode = (p: string) => p.replace(/%[0-9a-f]{2}/gi, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));

/** The path the portal routes on: WHATWG URL parsing (`\` is `/`, dot segments go), then decoded. */
const portalPath = (raw: string) => decode(new URL(raw, BASE).pathname);

/** Dot segments resolved on `/` only, everything else (a backslash, %-escapes) as sent. */
function resolveDots(raw: string): string {
	const path = raw.replace(/^https?:\/\/[^/]*/, '').replace(/[?#].*$/s, '');
	const out: string[] = [];
	for (const segment of path.split('/').slice(1)) {
		if (segment === '..') out.pop();
		else if (segment !== '.') out.push(segment);
	}
	return '/' + out.join('/');
}

/** Readings of the path Vercel's `path` condition may see. */
const READINGS: Record<string, (raw: string) => string> = {
	'WHATWG, escapes kept': (raw) => new URL(raw, BASE).pathname,
	'WHATWG, decoded': portalPath,
	'dots resolved, backslash and escapes kept': resolveDots,
	'dots resolved, backslash kept, decoded': (raw) => decode(resolveDots(raw))
};

/** Vercel's semantics: every condition of a group, any group; every operator case-insensitive. */
function matches(rule: Rule, path: string): boolean {
	const test = (c: Condition) => {
		if (c.type !== 'path') throw new Error(`unexpected condition type ${c.type}`);
		if (c.op === 'pre') return path.toLowerCase().startsWith(c.value.toLowerCase());
		if (c.op === 'eq') return path.toLowerCase() === c.value.toLowerCase();
		if (c.op === 're') return new RegExp(c.value, 'i').test(path);
		throw new Error(`unexpected operator ${c.op}`);
	};
	return rule.conditionGroup.some((g) => g.conditions.every(test));
}

describe('the Vercel rules hold against odd path spellings', () => {
	const routedAuth = AUTH_SPELLINGS.filter((s) => portalPath(s).startsWith('/api/auth/'));
	const routedPulse = PULSE_SPELLINGS.filter((s) => portalPath(s) === '/api/community-pulse');

	it('the spelling lists hold walk-arounds: spellings the portal routes there that are not the plain path', () => {
		expect(routedAuth).toEqual(
			expect.arrayContaining(['/api\\auth/nonce', '/x/..\\api/auth/nonce', '/%61pi/auth/nonce'])
		);
		expect(routedPulse).toEqual(expect.arrayContaining(['/api\\community-pulse', '/%61pi/community-pulse']));
	});

	for (const [reading, read] of Object.entries(READINGS)) {
		it(`every spelling the portal reads as /api/auth/* matches the auth rule and the single rule (${reading})`, () => {
			expect(routedAuth.filter((s) => !matches(auth!, read(s)))).toEqual([]);
			expect(routedAuth.filter((s) => !matches(single!, read(s)))).toEqual([]);
		});
		it(`every spelling the portal reads as /api/community-pulse matches its rule and the single rule (${reading})`, () => {
			expect(routedPulse.filter((s) => !matches(pulse!, read(s)))).toEqual([]);
			expect(routedPulse.filter((s) => !matches(single!, read(s)))).toEqual([]);
		});
	}

	it('the rules do not reach other paths', () => {
		for (const path of ['/', '/setup', '/apply', '/admin', '/healthz', '/apiary/auth/x', '/api/authority']) {
			expect(matches(auth!, path), path).toBe(false);
		}
		for (const path of ['/api/community-pulses', '/api/auth/nonce', '/community-pulse']) {
			expect(matches(pulse!, path), path).toBe(false);
		}
	});
});
