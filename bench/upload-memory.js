// @ts-check
// An upload's cost (issue 58): a 10 MiB PDF posted through the apply form (`POST /apply`, multipart) of the
// built portal, its FILES_DIR on a temporary folder, against the same multipart body written to disk by a
// bare node process (an http server that pipes the body into a file and fsyncs it: what receiving those
// bytes and keeping them costs at least). Each round a new member applies (one application a member);
// rounds alternate between the two. Measured for each: the wall time of the request (sent to answered)
// and the server's RSS growth (peak sampled every 10 ms during the request, minus the RSS just before;
// the kernel's VmRSS of the server's own node process). The first round of each is shown apart (a cold
// process), then the median of the rest.
//   node bench/upload-memory.js [--rounds 5] [--mib 10] [--pglite]
// Needs `npm run build` first; the database is its own (BENCH_DATABASE_URL's server, dropped at the end),
// or PGlite in memory with --pglite.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBenchDatabase, freePort, memoryOf, quantile, signIn, startPortal } from './harness.js';

/** @param {string} name @param {string} fallback */
const option = (name, fallback) => {
	const at = process.argv.indexOf(`--${name}`);
	return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};
const rounds = Number(option('rounds', '5'));
const mib = Number(option('mib', '10'));
const pglite = process.argv.includes('--pglite');
const adminUrl =
	process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// The file: a PDF's first bytes, then random ones (nothing to compress, as most PDFs and images).
const FILE = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(mib * 1024 * 1024 - 9)]);

/** The bare baseline: node's http server, the body piped into a file, fsynced, then 204. */
const BASELINE = `
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
let n = 0;
http.createServer((req, res) => {
	const file = path.join(process.env.DIR, 'upload-' + n++);
	const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
	req.pipe(out);
	out.on('finish', () => fs.fsync(out.fd, () => out.close(() => res.writeHead(204).end())));
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('Listening'));
`;

/** @param {string} dir */
async function startBaseline(dir) {
	const port = await freePort();
	const child = spawn(process.execPath, ['-e', BASELINE], {
		env: { PATH: process.env.PATH, PORT: String(port), DIR: dir },
		stdio: ['ignore', 'pipe', 'inherit']
	});
	await new Promise((resolve) => child.stdout.once('data', resolve));
	return {
		url: `http://127.0.0.1:${port}`,
		pid: /** @type {number} */ (child.pid),
		stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')))
	};
}

/** The apply form's multipart body, as a browser sends it. */
function applyForm() {
	const form = new FormData();
	form.set('displayName', 'Ada');
	form.set('motivation', 'My portfolio is attached.');
	form.set('answers.portfolio', new File([new Uint8Array(FILE)], 'portfolio.pdf', { type: 'application/pdf' }));
	return form;
}

/**
 * One upload: the wall time, and the server's RSS growth while it lasted.
 * @param {number} pid the server's process
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {number[]} ok the statuses that mean it was kept
 */
async function measure(pid, url, headers, ok) {
	const body = applyForm();
	await new Promise((r) => setTimeout(r, 500));
	const before = memoryOf(pid).rss;
	let peak = before;
	const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 10);
	const t0 = performance.now();
	const answer = await fetch(url, { method: 'POST', body, headers, redirect: 'manual' });
	await answer.arrayBuffer();
	const ms = performance.now() - t0;
	clearInterval(sampler);
	peak = Math.max(peak, memoryOf(pid).rss);
	if (!ok.includes(answer.status)) throw new Error(`${url}: ${answer.status}`);
	return { ms, growth: peak - before, before };
}

const filesDir = mkdtempSync(path.join(tmpdir(), 'bench-upload-files-'));
const baselineDir = mkdtempSync(path.join(tmpdir(), 'bench-upload-bare-'));
const database = pglite ? null : await createBenchDatabase(adminUrl);
const admin = privateKeyToAccount(generatePrivateKey());
/** @type {{ ms: number, growth: number, before: number }[]} */
const portalRuns = [];
/** @type {{ ms: number, growth: number, before: number }[]} */
const bareRuns = [];
const portal = await startPortal({
	...(database ? { DATABASE_URL: database.url } : {}),
	ADMIN_ADDRESSES: admin.address,
	FILES_DIR: filesDir,
	BACKUP_KEEP: '0'
});
const bare = await startBaseline(baselineDir);
try {
	const adminCookie = await signIn(portal.url, admin);
	const form = new URLSearchParams([
		['questionCount', '1'],
		['questions.0.key', 'portfolio'],
		['questions.0.label', 'Your portfolio'],
		['questions.0.type', 'file'],
		['questions.0.accept', 'application/pdf'],
		['questions.0.files', '1'],
		['questions.0.size', String(mib)]
	]);
	const saved = await fetch(`${portal.url}/admin/form?/save`, {
		method: 'POST',
		body: form,
		headers: { cookie: adminCookie, origin: portal.url, accept: 'text/html' },
		redirect: 'manual'
	});
	if (saved.status !== 303) throw new Error(`saving the form: ${saved.status}`);
	for (let round = 0; round < rounds; round++) {
		const member = privateKeyToAccount(generatePrivateKey());
		const cookie = await signIn(portal.url, member);
		const runs = [
			async () =>
				portalRuns.push(
					await measure(portal.pid, `${portal.url}/apply`, { cookie, origin: portal.url, accept: 'text/html' }, [303])
				),
			async () => bareRuns.push(await measure(bare.pid, `${bare.url}/`, {}, [204]))
		];
		// Alternating which goes first.
		for (const run of round % 2 ? runs.reverse() : runs) await run();
	}
} finally {
	await portal.stop();
	await bare.stop();
	rmSync(filesDir, { recursive: true, force: true });
	rmSync(baselineDir, { recursive: true, force: true });
	await database?.drop();
}

/** @param {string} name @param {{ ms: number, growth: number, before: number }[]} runs */
const line = (name, runs) => {
	const [first, ...rest] = runs;
	const median = (/** @type {number[]} */ v) =>
		quantile(
			[...v].sort((a, b) => a - b),
			0.5
		);
	return `${name}: first ${first?.ms.toFixed(0)} ms, +${first?.growth.toFixed(0)} MiB (RSS ${first?.before.toFixed(0)} MiB before); then median ${median(rest.map((r) => r.ms)).toFixed(0)} ms, +${median(rest.map((r) => r.growth)).toFixed(0)} MiB (max +${Math.max(...rest.map((r) => r.growth)).toFixed(0)})`;
};
console.log(`${mib} MiB PDF, ${rounds} rounds, ${pglite ? 'PGlite in memory' : 'PostgreSQL'}:`);
console.log(line('POST /apply (portal)', portalRuns));
console.log(line('bare node to disk  ', bareRuns));
const ratio = (/** @type {(r: { ms: number, growth: number }) => number} */ f) =>
	quantile(
		portalRuns
			.slice(1)
			.map(f)
			.sort((a, b) => a - b),
		0.5
	) /
	quantile(
		bareRuns
			.slice(1)
			.map(f)
			.sort((a, b) => a - b),
		0.5
	);
console.log(`portal / bare, medians after the first: time ${ratio((r) => r.ms).toFixed(1)}x`);
