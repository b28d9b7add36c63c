// @ts-check
// The export's memory with a reader slower than the database (issue 60, part 3): a client on a slow link
// downloads /admin/applications.csv from the built portal on PostgreSQL while the server's RSS is
// sampled. For each size, a fresh portal, one warm-up export of one row, then the whole file read at a
// bounded rate with pauses; the growth is the peak RSS during the download minus the RSS before it.
//   node bench/export-memory.js [--rows 50000,200000,1000000] [--rate 8] [--node bounded,plain,size] [--probe]
//                               [--builds before=/path/to/a/build,after=build]
// --rate: MiB/s the reader takes (in bursts of a tenth of a second, and a pause of 0.5 s every 2 s);
// --node: the portal's command line: `bounded` as deploy/systemd runs it (--max-old-space-size=1024,
// decision 0045), `plain` as `node build/index.js`, `size` as `npm start` does (--optimize-for-size);
// --probe: the server's own process.memoryUsage() sampled too (bench/export-memory-probe.mjs), to
// tell the growth apart into heap and memory outside it; --builds: the builds to compare on the same seeded
// rows and in the same run (name=folder holding its index.js; default after=build), e.g. a build of the
// code before a change, kept aside (`cp -a build/ /tmp/before` before building the change).
// Needs `npm run build` first; the database is its own (BENCH_DATABASE_URL's server), dropped at the end.
import http from 'node:http';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBenchDatabase, memoryOf, signIn, startPortal } from './harness.js';

/** @param {string} name @param {string} fallback */
const option = (name, fallback) => {
	const at = process.argv.indexOf(`--${name}`);
	return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};
const sizes = option('rows', '50000,200000,1000000').split(',').map(Number);
const rate = Number(option('rate', '8')) * 1024 * 1024;
const modes = option('node', 'bounded,plain,size').split(',');
const probe = process.argv.includes('--probe');
const builds = option('builds', 'after=build')
	.split(',')
	.map((pair) => {
		const [name, dir] = pair.includes('=') ? pair.split('=') : [pair, pair];
		return { name: name ?? '', dir: path.resolve(dir ?? '') };
	});
for (const build of builds)
	if (!existsSync(path.join(build.dir, 'index.js'))) throw new Error(`--builds: no index.js in ${build.dir}`);
/** The machine's 1-minute load average, as the entries record it. */
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
/** @type {Record<string, string[]>} */
const FLAGS = { bounded: ['--max-old-space-size=1024'], plain: [], size: ['--optimize-for-size'] };

const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const address = (/** @type {number} */ g) => '0x' + g.toString(16).padStart(40, '0');

/**
 * Applicants from+1..to, one application each (the export reads only applications).
 * @param {import('postgres').Sql} sql
 * @param {number} from
 * @param {number} to
 */
async function seed(sql, from, to) {
	const addr = sql.unsafe(`'0x' || lpad(to_hex(g), 40, '0')`);
	await sql`insert into members (address) select ${addr} from generate_series(${from + 1}::int, ${to}::int) g`;
	await sql`
		insert into applications (applicant_address, display_name, motivation, contact, review, created_at, updated_at)
		select ${addr}, 'Applicant ' || g || '.', repeat('I would like to join because ', 8), '@member' || g,
			(array['pending','needs_info','approved','rejected'])[1 + g % 4]::review_state,
			now() - make_interval(secs => g), now() - make_interval(secs => g)
		from generate_series(${from + 1}::int, ${to}::int) g`;
	await sql`vacuum (analyze) applications, members`;
}

/**
 * Reads `res` at `rate` bytes a second at most, in bursts, with a pause of 0.5 s every 2 s.
 * @param {http.IncomingMessage} res
 * @param {(chunk: Buffer) => void} onData
 * @returns {Promise<void>}
 */
function readSlowly(res, onData) {
	const started = performance.now();
	let reading = 0; // ms the bytes so far take at `rate`
	return new Promise((resolve, reject) => {
		res.on('data', (/** @type {Buffer} */ chunk) => {
			onData(chunk);
			reading += (chunk.length / rate) * 1000;
			// Every 2 s of reading, half a second of not reading at all.
			const wait = started + reading + Math.floor(reading / 2000) * 500 - performance.now();
			if (wait > 5) {
				res.pause();
				setTimeout(() => res.resume(), wait);
			}
		});
		res.on('end', resolve);
		res.on('error', reject);
	});
}

const database = await createBenchDatabase(adminUrl);
const sql = postgres(database.url, { max: 1, onnotice: () => {} });
const account = privateKeyToAccount(generatePrivateKey());
/** @type {string[]} */
const lines = [];
try {
	let seeded = 0;
	for (const size of sizes) {
		const started = performance.now();
		await seed(sql, seeded, size);
		seeded = size;
		console.log(`seeded ${size} applications in ${((performance.now() - started) / 1000).toFixed(0)} s`);
		for (const mode of modes)
			for (const build of builds) {
				const probeFile = path.join(tmpdir(), `export-memory-${process.pid}.jsonl`);
				rmSync(probeFile, { force: true });
				const portal = await startPortal(
					{
						DATABASE_URL: database.url,
						ADMIN_ADDRESSES: account.address,
						EXPORT_PROBE_FILE: probe ? probeFile : undefined
					},
					{
						args: [
							...(probe ? ['--import', pathToFileURL(path.resolve('bench/export-memory-probe.mjs')).href] : []),
							...(FLAGS[mode] ?? []),
							path.join(build.dir, 'index.js')
						]
					}
				);
				try {
					const cookie = await signIn(portal.url, account);
					// The warm-up: an export of one row.
					const one = await fetch(`${portal.url}/admin/applications.csv?q=${address(1)}`, { headers: { cookie } });
					const text = await one.text();
					const warm = text.split('\r\n').length - 2;
					if (warm !== 1)
						throw new Error(`warm-up export had ${warm} rows: ${one.status} ${JSON.stringify(text.slice(0, 300))}`);
					await new Promise((r) => setTimeout(r, 1000));
					const before = memoryOf(portal.pid).rss;
					let peak = before;
					const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(portal.pid).rss)), 50);
					const t0 = performance.now();
					const from = Date.now();
					let rows = -1; // the header line
					let bytes = 0;
					let first = 0;
					await new Promise((resolve, reject) => {
						http
							.get(`${portal.url}/admin/applications.csv`, { headers: { cookie } }, (res) => {
								readSlowly(res, (chunk) => {
									if (!first) first = performance.now() - t0;
									bytes += chunk.length;
									for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
								}).then(resolve, reject);
							})
							.on('error', reject);
					});
					clearInterval(sampler);
					const seconds = (performance.now() - t0) / 1000;
					const after = memoryOf(portal.pid).rss;
					let split = '';
					if (probe) {
						/** @typedef {{ t: number, rss?: number, heapTotal: number, heapUsed: number, external: number, arrayBuffers: number }} Sample */
						const samples = readFileSync(probeFile, 'utf8')
							.trim()
							.split('\n')
							.map((l) => {
								/** @type {unknown} */
								const sample = JSON.parse(l);
								return /** @type {Sample} */ (sample);
							})
							.filter((l) => l.rss !== undefined);
						const base = samples.filter((s) => s.t < from).at(-1) ?? samples[0];
						const during = samples.filter((s) => s.t >= from);
						/** @param {'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers'} k */
						const max = (k) => Math.max(...during.map((s) => s[k])) - (base?.[k] ?? 0);
						split = `; peak over before: heap total +${max('heapTotal').toFixed(0)}, heap used +${max('heapUsed').toFixed(0)}, external +${max('external').toFixed(0)} (array buffers +${max('arrayBuffers').toFixed(0)}) MiB`;
						// Whether the growth levels off or keeps climbing with the rows: RSS over before, per tenth of the download.
						const tenth = (Date.now() - from) / 10;
						const steps = Array.from({ length: 10 }, (_, i) =>
							Math.max(...during.filter((s) => s.t < from + (i + 1) * tenth).map((s) => s.rss ?? 0))
						);
						split += `; peak RSS over before by tenths of the download: ${steps.map((r) => `+${(r - (base?.rss ?? 0)).toFixed(0)}`).join(' ')}`;
					}
					const line = `${size} rows, node ${mode}, ${build.name}: ${rows} rows, ${(bytes / 1048576).toFixed(0)} MiB in ${seconds.toFixed(0)} s (reader ${(rate / 1048576).toFixed(0)} MiB/s), first byte ${first.toFixed(0)} ms, RSS ${before.toFixed(0)} MiB, peak +${(peak - before).toFixed(0)}, at the end +${(after - before).toFixed(0)} MiB${split}; load ${load()}`;
					console.log(line);
					lines.push(line);
				} finally {
					await portal.stop();
					rmSync(probeFile, { force: true });
				}
			}
	}
} finally {
	await sql.end();
	if (process.env.KEEP_DB) console.log(`kept ${database.url}`);
	else await database.drop();
}
console.log('\n' + lines.join('\n'));
