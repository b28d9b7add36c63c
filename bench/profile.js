// @ts-check
// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=<dir> npm run bench -- --only <scenario>):
// top functions by self time, and self time per package or build file.
//   node bench/profile.js <file.cpuprofile> [--top 25] [--windows <from>-<to>,...]
// --windows: only the samples taken within these spans (microseconds of CLOCK_MONOTONIC, the clock of
// the profile's timestamps and of process.hrtime; bench/journey-cpu.js prints each phase's span).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: { top: { type: 'string', default: '25' }, windows: { type: 'string' } }
});
/**
 * The parts of V8's .cpuprofile format read here.
 * @typedef {{ id: number, children?: number[], callFrame: { functionName: string, url: string, lineNumber: number } }} ProfileNode
 * @typedef {{ nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number }} Profile
 */

const file = positionals[0];
if (!file) throw new Error('usage: node bench/profile.js <file.cpuprofile> [--top 25]');
/** @type {unknown} */
const json = JSON.parse(readFileSync(file, 'utf8'));
const profile = /** @type {Profile} */ (json);
if (values.windows) {
	const spans = values.windows.split(',').map((w) => w.split('-').map(Number));
	/** @type {number[]} */
	const samples = [];
	/** @type {number[]} */
	const deltas = [];
	let at = profile.startTime;
	profile.samples.forEach((id, i) => {
		const delta = profile.timeDeltas[i] ?? 0;
		at += delta;
		if (spans.some(([from = 0, to = 0]) => at >= from && at <= to)) {
			samples.push(id);
			deltas.push(delta);
		}
	});
	profile.samples = samples;
	profile.timeDeltas = deltas;
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
/** @param {number} id */
const nodeOf = (id) => /** @type {ProfileNode} */ (byId.get(id));
/** @type {Map<number, number>} */
const self = new Map();
// timeDeltas[i] is the time before samples[i]; attribute it to the sampled node.
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** @param {string} url */
const where = (url) => {
	const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
	if (m?.[1]) return m[1];
	if (url.includes('/build/')) return 'build/' + (url.split('/build/')[1] ?? '').replace(/-[\w-]{8}\.js$/, '.js');
	return url ? url.replace(/^.*\//, '') : '(native / V8)';
};
/** @type {Map<string, number>} */
const fn = new Map();
/** @type {Map<string, number>} */
const pkg = new Map();
for (const [id, us] of self) {
	const { functionName, url, lineNumber } = nodeOf(id).callFrame;
	const key = `${functionName || '(anonymous)'}  ${where(url)}${url ? ':' + (lineNumber + 1) : ''}`;
	fn.set(key, (fn.get(key) ?? 0) + us);
	const p = functionName.startsWith('(') && !url ? functionName : where(url);
	pkg.set(p, (pkg.get(p) ?? 0) + us);
}
/** @param {string} title @param {Map<string, number>} map @param {number} n */
const print = (title, map, n) => {
	console.log(`\n${title} (of ${(total / 1e6).toFixed(2)} s sampled)`);
	for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
		console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
	}
};
// Inclusive time: each sample counts once for every distinct function on its stack.
/** @type {Map<number, number>} */
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** @type {Map<string, number>} */
const inclusive = new Map();
profile.samples.forEach((id, i) => {
	/** @type {Set<string>} */
	const keys = new Set();
	for (let n = /** @type {number | undefined} */ (id); n !== undefined; n = parent.get(n)) {
		const { functionName, url, lineNumber } = nodeOf(n).callFrame;
		if (!url) continue;
		keys.add(`${functionName || '(anonymous)'}  ${where(url)}:${lineNumber + 1}`);
	}
	for (const k of keys) inclusive.set(k, (inclusive.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
print('self time by function', fn, Number(values.top));
print('inclusive time by function (JS frames)', inclusive, Number(values.top));
print('self time by package / file', pkg, 15);
