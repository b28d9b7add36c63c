// @ts-check
// One portal, with the Node flags given, downloading applications.csv several times from a seeded
// database (node bench/scale-seed.js): each download's rows/s, first byte and the server's RSS growth.
// Decision 0045's table came from it:
//   N=3 node bench/export-flags.js <database url> [node flags ...]
// (No flags: Node's defaults. npm run build first.)
import http from 'node:http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { memoryOf, signIn, startPortal } from './harness.js';

const [url, ...flags] = process.argv.slice(2);
if (!url) throw new Error('usage: node bench/export-flags.js <database url> [node flags ...]');
const account = privateKeyToAccount(generatePrivateKey());
const portal = await startPortal(
	{ DATABASE_URL: url, ADMIN_ADDRESSES: account.address },
	{ args: [...flags, 'build/index.js'] }
);
const cookie = await signIn(portal.url, account);
// The pages first, as the scale scenario does before its downloads.
for (const page of ['/admin', '/admin?q=icant%20777.', '/review'])
	for (let i = 0; i < 3; i++) await fetch(portal.url + page, { headers: { cookie } }).then((r) => r.text());

/** @returns {Promise<string>} */
function download() {
	const before = memoryOf(portal.pid).rss;
	let peak = before;
	const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(portal.pid).rss)), 50);
	const started = performance.now();
	return new Promise((resolve, reject) => {
		http
			.get(`${portal.url}/admin/applications.csv`, { headers: { cookie } }, (res) => {
				let rows = -1; // the header line
				let first = 0;
				res.on('data', (/** @type {Buffer} */ chunk) => {
					if (!first) first = performance.now() - started;
					for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
				});
				res.on('end', () => {
					clearInterval(sampler);
					const seconds = (performance.now() - started) / 1000;
					resolve(
						`${rows} rows, ${Math.round(rows / seconds)} rows/s, first byte ${first.toFixed(0)} ms, RSS ${before.toFixed(0)} +${(peak - before).toFixed(0)} MiB`
					);
				});
				res.on('error', reject);
			})
			.on('error', reject);
	});
}

console.log(flags.join(' ') || "(Node's defaults)");
try {
	for (let i = 0; i < (Number(process.env.N) || 2); i++) console.log(await download());
} finally {
	await portal.stop();
}
