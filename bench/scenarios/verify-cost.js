// @ts-check
// What one POST /api/auth/verify costs the server in CPU time (utime + stime of its process, from
// /proc, over sequential requests on one connection), for the worst bodies of at most 8 KiB we
// found, next to a normal sign-in and the anonymous GET /api/auth/me. Target: every body of at most
// 8 KiB <= 5 ms of server CPU (issue 25; the parser's scanners are in docs/sign-in.md "Bounding the parser").
// BENCH_VERIFY_ONLY=<text> runs only the cases whose name contains it (and the baseline).
import { readFileSync } from 'node:fs';
import { createEncodedRecap, formatMessage } from '@walletconnect/utils';
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
 * The largest message `make(n)` of at most `limit` bytes (measured as `wrap` makes it: the JSON body).
 * @param {(n: number) => string} make
 * @param {number} limit
 * @param {(message: string) => string} [wrap]
 */
function fill(make, limit, wrap = (message) => message) {
	let lo = 0;
	let hi = 8192;
	while (lo < hi) {
		const mid = (lo + hi + 1) >> 1;
		if (Buffer.byteLength(wrap(make(mid))) <= limit) lo = mid;
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
		const recap = createEncodedRecap('eip155', 'request', [
			'personal_sign',
			'eth_sendTransaction',
			'eth_signTypedData_v4'
		]);
		const iso = (/** @type {number} */ minutes) => new Date(Date.now() + minutes * 60_000).toISOString();
		const oneClickAuth = formatMessage(
			{
				domain: host,
				aud: portal.url,
				version: '1',
				nonce,
				iat: iso(0),
				exp: iso(14),
				statement: 'Sign in to the member portal.',
				requestId: 'bench',
				resources: [`${portal.url}/terms`, recap]
			},
			`did:pkh:eip155:137:${account.address}`
		);
		const fullViem = fill(
			(n) =>
				`${honest}\nNot Before: ${iso(-1)}\nRequest ID: bench\nResources:\n${Array.from({ length: Math.ceil(n / 40) + 1 }, (_, i) => `- ${portal.url}/docs/terms#clause-${i}`).join('\n')}`,
			// Each line break is two bytes in the JSON body.
			8192 - 220 - 200
		);
		/** @type {Map<string, string>} */
		const signatures = new Map();
		for (const message of [oneClickAuth, fullViem]) signatures.set(message, await account.signMessage({ message }));
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
				'8 KiB body with the nonce cookie, slashes in the URI path (the old 1 KiB bound refused it)',
				'POST',
				'/api/auth/verify',
				json(cookie),
				JSON.stringify({ message: withUri(`http://${host}/${'/'.repeat(7700)}`), signature: garbage }),
				401
			],
			// Signed honest messages, replayed like the normal sign-in: parsed in full, then accepted.
			.../** @type {[string, string][]} */ ([
				['One-Click Auth message with ReCaps (WalletConnect, 1.1 KB)', oneClickAuth],
				['viem message with every field and resources to 8 KiB', fullViem]
			]).map(
				([label, message]) =>
					/** @type {Case} */ ([
						`honest ${label}, signed`,
						'POST',
						'/api/auth/verify',
						json(cookie),
						JSON.stringify({ message, signature: signatures.get(message) }),
						200
					])
			),
			.../** @type {[string, (n: number) => string][]} */ ([
				['slashes in the URI path', (n) => withUri(`http://${host}/${'/'.repeat(n)}`)],
				['dot segments in the URI path', (n) => withUri(`http://${host}/${'./'.repeat(n)}`)],
				['slashes after the URI scheme', (n) => withUri(`http://${'/'.repeat(n)}`)],
				['a dotted domain', (n) => withUri(portal.url).replace(`${host} wants`, `${'a.'.repeat(n)}b wants`)],
				['a resource of dotted digits', (n) => `${honest}\nResources:\n- https://${'1.'.repeat(n)}a`],
				['a crowd of one-letter resources', (n) => `${honest}\nResources:\n${'- a:\n'.repeat(n)}- a:`],
				['IPv6 groups in the URI host', (n) => withUri(`http://[${'1:'.repeat(n)}1]`)],
				['a request id of tildes', (n) => `${honest}\nRequest ID: ${'~'.repeat(n)}`],
				['a statement of tildes', (n) => withUri(portal.url, '~'.repeat(n))],
				['a statement', (n) => withUri(portal.url, 'x'.repeat(n))]
			]).map(
				([label, make]) =>
					/** @type {Case} */ ([
						// The largest message whose JSON body stays within the 8 KiB limit.
						`8 KiB body, ${label}, with the nonce cookie (parsed, then refused)`,
						'POST',
						'/api/auth/verify',
						json(cookie),
						JSON.stringify({
							message: fill(
								(n) => make(n),
								8192,
								(m) => JSON.stringify({ message: m, signature: garbage })
							),
							signature: garbage
						}),
						401
					])
			)
		];
		/** @type {import('../harness.js').Row[]} */
		const rows = [];
		/** @type {import('../harness.js').Rate | undefined} */
		let baseline;
		// BENCH_VERIFY_ONLY=<text>: only the cases whose name contains it, and the baseline (e.g. "normal" to profile a sign-in).
		const only = process.env.BENCH_VERIFY_ONLY;
		for (const [name, method, path, headers, body, status] of cases) {
			if (only && !name.includes(only) && !name.startsWith('GET')) continue;
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
