// @ts-check
// `npm run bench`: builds the portal, starts it on a Postgres server (or PGlite with --pglite), loads it
// from this second process on loopback and prints one table of scenarios against their baselines.
// Options: --pglite, --only <name[,name]>, --seconds N (per round, default 4), --rounds N (alternating
// rounds, the median counts; default 3), --scales 1,10,100, --no-build.
// BENCH_CPU_PROF=<dir> runs every portal under node --cpu-prof (see bench/profile.js).
import { execSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createBenchDatabase, printTable } from './harness.js';

const { values } = parseArgs({
	options: {
		pglite: { type: 'boolean', default: false },
		only: { type: 'string' },
		seconds: { type: 'string', default: '4' },
		rounds: { type: 'string', default: '3' },
		scales: { type: 'string', default: '1,10,100' },
		'no-build': { type: 'boolean', default: false }
	}
});

const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** @type {Record<string, () => Promise<{ default: import('./harness.js').Scenario }>>} */
const all = {
	auth: () => import('./scenarios/auth.js'),
	signin: () => import('./scenarios/signin.js'),
	checkin: () => import('./scenarios/checkin.js'),
	'rate-limit': () => import('./scenarios/rate-limit.js'),
	pulse: () => import('./scenarios/pulse.js'),
	admin: () => import('./scenarios/admin.js'),
	stall: () => import('./scenarios/stall.js'),
	questions: () => import('./scenarios/questions.js'),
	votes: () => import('./scenarios/votes.js'),
	assignment: () => import('./scenarios/assignment.js'),
	webhooks: () => import('./scenarios/webhooks.js'),
	'js-size': () => import('./scenarios/js-size.js'),
	// A path the type checker does not follow: bench/lighthouse is a project of its own, installed on demand.
	lighthouse: () => import('./lighthouse/install.js').then(() => import(['.', 'lighthouse', 'scenario.js'].join('/'))),
	rss: () => import('./scenarios/rss.js'),
	'verify-cost': () => import('./scenarios/verify-cost.js'),
	insights: () => import('./scenarios/insights.js'),
	observability: () => import('./scenarios/observability.js'),
	scale: () => import('./scenarios/scale.js'),
	programs: () => import('./scenarios/programs.js')
};
const chosen = values.only ? values.only.split(',') : Object.keys(all);
for (const name of chosen)
	if (!(name in all)) throw new Error(`unknown scenario ${name}; known: ${Object.keys(all).join(', ')}`);

if (!values['no-build']) execSync('npx vite build', { stdio: ['ignore', 'ignore', 'inherit'] });
// The database is on the Postgres server either way: with --pglite the portal ignores it, and the
// scenarios that measure SQL from this process (rate-limit) still use it.
const database = await createBenchDatabase(adminUrl);
/** @type {import('./harness.js').Context} */
const context = {
	databaseUrl: database.url,
	adminUrl,
	engine: values.pglite ? 'pglite' : 'postgres',
	seconds: Number(values.seconds),
	rounds: Number(values.rounds),
	scales: values.scales.split(',').map(Number)
};
/** @type {import('./harness.js').Row[]} */
const rows = [];
const started = Date.now();
try {
	for (const name of chosen) {
		console.error(`running ${name} ...`);
		try {
			const scenario = all[name];
			if (scenario) rows.push(...(await (await scenario()).default(context)));
		} catch (err) {
			// One broken scenario should not cost the figures of the others.
			console.error(err);
			const message = err instanceof Error ? err.message : String(err);
			rows.push({ name: `${name}: FAILED (${message.split('\n')[0]})` });
			process.exitCode = 1;
		}
	}
} finally {
	await database.drop();
}
const load = os
	.loadavg()
	.map((l) => l.toFixed(1))
	.join(' ');
console.log(
	`\nmachine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ` +
		`engine ${context.engine}, ${context.rounds} rounds of ${context.seconds} s (medians), load average ${load}, ${((Date.now() - started) / 1000).toFixed(0)} s\n`
);
printTable(rows);
