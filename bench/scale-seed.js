// @ts-check
// Seeds the scale scenario's databases once and keeps them, for re-runs after a change:
//   node bench/scale-seed.js [--scales 1,1000]
// prints BENCH_SCALE_DATABASES=<1x url>,<large url> for `npm run bench -- --only scale`. Drop them
// afterwards with `dropdb` (1,000x takes ~3-4 GB).
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import postgres from 'postgres';
import { createBenchDatabase } from './harness.js';
import { seed } from './scenarios/scale.js';

const at = process.argv.indexOf('--scales');
const scales = (at > 0 ? (process.argv[at + 1] ?? '') : '1,1000').split(',').map(Number);
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const executor = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
/** @type {string[]} */
const urls = [];
for (const scale of [scales[0] ?? 1, scales[scales.length - 1] ?? 1000]) {
	const database = await createBenchDatabase(adminUrl);
	const sql = postgres(database.url, { max: 1, onnotice: () => {} });
	const t = performance.now();
	try {
		await seed(sql, 1_000 * scale, executor);
	} finally {
		await sql.end();
	}
	console.error(`${scale}x: ${database.url} seeded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
	urls.push(database.url);
}
console.log(`BENCH_SCALE_DATABASES=${urls.join(',')}`);
