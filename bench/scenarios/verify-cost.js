// @ts-check
// What one POST /api/auth/verify costs the server in CPU time (utime + stime of its process, from
// /proc, over sequential requests on one connection), for the worst bodies of at most 8 KiB we
// found, next to a normal sign-in and the anonymous GET /api/auth/me. Target: every refused body
// <= 5 ms of server CPU (issue 12 item 3; the bounds are in docs/sign-in.md "Before parsing").
import { readFileSync } from 'node:fs';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { fetchNonce, httpClient, siweMessage, startPortal } from '../harness.js';

/** @typedef {[name: string, method: string, path: string, headers: Record<string, string>, body: string | undefined, status: number]} Case */

const REQUESTS = 300;
const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * CPU milliseconds the process has used so far.
 * @param {number} pid
 */
function cpuMs(pid) {
	const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
	return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * The largest message `make(n)` of at most `limit` bytes.
 * @param {(n: number) => string} make
 * @param {number} limit
 */
function fill(make, limit) {
	let lo = 0;
	let hi = 8192;
	while (lo < hi) {
		const mid = (lo + hi + 1) >> 1;
		if (Buffer.byteLength(make(mid)) <= limit) lo = mid;
		else hi = mid - 1;
	}
	return make(lo);
}

/** @type {import('../harness.js').Scenario} */
export default async function verifyCost({ databaseUrl, engine }) {
	const portal = await startPortal(engine === 'postgres' ? { DATABASE_URL: databaseUrl } : {});
	const client = httpClient(portal.url, 1);
	const host = new URL(portal.url).host;
	const account = privateKeyToAccount(generatePrivateKey());
	const garbage = `0x${'11'.repeat(65)}`;
	/**
	 * @param {string} [cookie]
	 * @returns {Record<string, string>}
	 */
	const json = (cookie) => ({ 'content-type': 'application/json', ...(cookie ? { cookie } : {}) });
	try {
		const { nonce, cookie } = await fetchNonce(portal.url);
		const honest = siweMessage(portal.url, account.address, nonce);
		/** The honest message with its URI (or statement) replaced, for bodies that reach the parser. */
		/**
		 * @param {string} uri
		 * @param {string} [statement]
		 */
		const withUri = (uri, statement = '') =>
			honest.replace(`URI: ${portal.url}`, `URI: ${uri}`).replace(/\n\n\nURI/, `\n\n${statement}\n\nURI`);
		const statement = 'x'.repeat(500);
		/** @type {Case[]} */
		const cases = [
			['GET /api/auth/me, anonymous (baseline)', 'GET', '/api/auth/me', {}, undefined, 200],
			[
				'normal sign-in (the same signed message replayed in its cookie: verify, upsert, new cookie)',
				'POST',
				'/api/auth/verify',
				json(cookie),
				JSON.stringify({ message: honest, signature: await account.signMessage({ message: honest }) }),
				200
			],
			[
				'8 KiB body, no nonce in the cookie',
				'POST',
				'/api/auth/verify',
				json(),
				JSON.stringify({ message: withUri(`http://${host}/${'/'.repeat(7700)}`), signature: garbage }),
				401
			],
			[
				'8 KiB body with the nonce cookie (over the 1 KiB bound)',
				'POST',
				'/api/auth/verify',
				json(cookie),
				JSON.stringify({ message: withUri(`http://${host}/${'/'.repeat(7700)}`), signature: garbage }),
				401
			],
			.../** @type {[string, (n: number) => string][]} */ ([
				['slashes in the URI path', (n) => withUri(`http://${host}/${'/'.repeat(n)}`, statement)],
				['dot segments in the URI path', (n) => withUri(`http://${host}/${'./'.repeat(n)}`, statement)],
				['slashes after the URI scheme', (n) => withUri(`http://${'/'.repeat(n)}`, statement)],
				['a dotted domain', (n) => withUri(portal.url, statement).replace(`${host} wants`, `${'a.'.repeat(n)}b wants`)]
			]).map(
				([label, make]) =>
					/** @type {Case} */ ([
						// At the bounds (MESSAGE_LIMITS in src/lib/server/auth/siwe.ts): a 500-byte statement and 400 bytes outside it.
						`1 KiB message at the bounds, ${label}, with the nonce cookie (parsed, then refused)`,
						'POST',
						'/api/auth/verify',
						json(cookie),
						JSON.stringify({ message: fill(make, 400 + statement.length), signature: garbage }),
						401
					])
			)
		];
		/** @type {import('../harness.js').Row[]} */
		const rows = [];
		/** @type {import('../harness.js').Rate | undefined} */
		let baseline;
		for (const [name, method, path, headers, body, status] of cases) {
			for (let i = 0; i < 50; i++) await client.request(method, path, { headers, body }); // warm-up
			/** @type {number[]} */
			const latencies = [];
			let errors = 0;
			const cpuBefore = cpuMs(portal.pid);
			const started = performance.now();
			for (let i = 0; i < REQUESTS; i++) {
				const t = performance.now();
				const r = await client.request(method, path, { headers, body });
				latencies.push(performance.now() - t);
				if (r.status !== status) errors++;
			}
			const wall = performance.now() - started;
			const cpu = (cpuMs(portal.pid) - cpuBefore) / REQUESTS;
			latencies.sort((a, b) => a - b);
			/** @param {number} q */
			const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
			/** @type {import('../harness.js').Row} */
			const row = {
				name: `verify cost: ${name} — server CPU ${cpu.toFixed(2)} ms/req`,
				rps: REQUESTS / (wall / 1000),
				p50: at(0.5),
				p99: at(0.99),
				errors,
				rss: portal.peakRssMiB(),
				target: name.startsWith('GET') || name.startsWith('normal') ? '' : 'CPU <= 5 ms/req'
			};
			if (!baseline) baseline = { rps: row.rps ?? 0, p50: row.p50 ?? 0, p99: row.p99 ?? 0, errors };
			else row.baseline = baseline;
			rows.push(row);
		}
		return rows;
	} finally {
		client.close();
		await portal.stop();
	}
}
