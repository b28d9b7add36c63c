// `npm run bench`: builds the portal, starts it on a Postgres server (or PGlite with --pglite), loads it
// from this second process on loopback and prints one table of scenarios against their baselines.
// Options: --pglite, --only <name[,name]>, --seconds N (default 5), --no-build, --scales 1,10,100
import { execSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createBenchDatabase, printTable } from './harness.js';

const { values } = parseArgs({
	options: {
		pglite: { type: 'boolean', default: false },
		only: { type: 'string' },
		seconds: { type: 'string', default: '5' },
		scales: { type: 'string', default: '1,10,100' },
		'no-build': { type: 'boolean', default: false }
	}
});

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const all = {
	'rate-limit': () => import('./scenarios/rate-limit.js'),
	auth: () => import('./scenarios/auth.js'),
	'admin-page': () => import('./admin-page.js')
};
const chosen = values.only ? values.only.split(',') : Object.keys(all);

if (!values['no-build']) execSync('npx vite build', { stdio: ['ignore', 'ignore', 'inherit'] });
const database = await createBenchDatabase(adminUrl);
const context = {
	databaseUrl: database.url,
	engine: values.pglite ? 'pglite' : 'postgres',
	seconds: Number(values.seconds),
	scales: values.scales.split(',').map(Number)
};
const rows = [];
try {
	for (const name of chosen) {
		if (!all[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(all).join(', ')}`);
		console.error(`running ${name} ...`);
		rows.push(...(await (await all[name]()).default(context)));
	}
} finally {
	await database.drop();
}
console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, ${(await import('node:os')).cpus()[0]?.model}, Node ${process.version}, engine ${context.engine}\n`);
printTable(rows);
