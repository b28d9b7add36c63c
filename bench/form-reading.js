// @ts-check
// Issue 39: the cost of one form post of ~500 KiB of distinct field names (`answers.<n>=1`, under the
// 512 KiB body limit), and how long /healthz waits while the server reads it.
//
//   node bench/form-reading.js [--rounds 5] [--skip-before] [--database postgres://postgres@127.0.0.1:5432/postgres]
//
// before: the old reader (a walk of the whole post per distinct name: `new Set(form.keys())` then
//   `getAll(name)`, as answersInput and voteFieldNames did) timed in this process on the parsed post.
// after: the built portal (`npm run build` first, on a database of its own on the Postgres server) answering POST /apply as a
//   signed-in member, and /healthz asked every 20 ms while it does; idle /healthz is the same run's baseline.
import { parseArgs } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBenchDatabase, quantile, signIn, startPortal } from './harness.js';

const { values } = parseArgs({
	options: {
		rounds: { type: 'string', default: '5' },
		'skip-before': { type: 'boolean', default: false },
		database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' }
	}
});
const rounds = Number(values.rounds);
const BYTES = 500 * 1024;

/** `answers.<n>=1&…` up to BYTES. */
function body() {
	const parts = [];
	let size = 0;
	for (let i = 0; size < BYTES - 32; i++) {
		const part = `answers.${i}=1`;
		parts.push(part);
		size += part.length + 1;
	}
	return parts.join('&');
}
const post = body();
const fields = post.split('&').length;
console.log(`post: ${post.length} bytes, ${fields} distinct names`);

if (!values['skip-before']) {
	const form = await new Request('http://x/', {
		method: 'POST',
		body: post,
		headers: { 'content-type': 'application/x-www-form-urlencoded' }
	}).formData();
	const started = performance.now();
	let read = 0;
	for (const name of new Set(form.keys())) read += form.getAll(name).length;
	console.log(
		`before (old reader, in process): ${((performance.now() - started) / 1000).toFixed(1)} s for ${read} values`
	);
}

const database = await createBenchDatabase(values.database);
const portal = await startPortal({ DATABASE_URL: database.url }, { profile: false });
try {
	const health = async () => {
		const started = performance.now();
		const response = await fetch(`${portal.url}/healthz`);
		await response.text();
		return performance.now() - started;
	};
	for (let i = 0; i < 5; i++) await health(); // warm
	/** @type {number[]} */
	const idle = [];
	for (let i = 0; i < 20; i++) idle.push(await health());
	/** @type {number[]} */
	const posts = [];
	/** @type {number[]} */
	const meanwhile = [];
	for (let round = 0; round < rounds; round++) {
		const cookie = await signIn(portal.url, privateKeyToAccount(generatePrivateKey()));
		const started = performance.now();
		let done = false;
		const answer = fetch(`${portal.url}/apply`, {
			method: 'POST',
			redirect: 'manual',
			body: post,
			headers: {
				cookie,
				origin: portal.url,
				accept: 'text/html',
				'content-type': 'application/x-www-form-urlencoded'
			}
		}).then(async (r) => {
			await r.text();
			posts.push(performance.now() - started);
			done = true;
			return r.status;
		});
		let worst = 0;
		do {
			await new Promise((resolve) => setTimeout(resolve, 20));
			worst = Math.max(worst, await health());
		} while (!done);
		meanwhile.push(worst);
		console.log(
			`round ${round + 1}: ${await answer} after ${posts.at(-1)?.toFixed(0)} ms, /healthz at worst ${worst.toFixed(0)} ms`
		);
	}
	const p50 = (/** @type {number[]} */ xs) => quantile(xs, 0.5).toFixed(0);
	console.log(
		`after: POST /apply median ${p50(posts)} ms; /healthz meanwhile (worst per post) median ${p50(meanwhile)} ms, idle median ${p50(idle)} ms`
	);
} finally {
	await portal.stop();
	await database.drop();
}
