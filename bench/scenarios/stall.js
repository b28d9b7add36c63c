// @ts-check
// The 40 ms stall (bench/README.md, "The 40 ms stall"): a reply that reaches a hop in two flushes, the
// second sent by a socket with Nagle's algorithm on while the first is not yet acknowledged, waits for
// the reader's delayed ACK (40 ms on Linux). Postgres answers a large result in 8 KiB flushes, so the
// statement-counting proxy in front of it (harness.js) held the rest of every such result until the
// portal acknowledged the first part.
//
// Rows, each of sequential round trips, each against a direct connection in the same run:
// - a fake server that answers each request in two writes 1 ms apart (8 KiB, then 6 KiB, as Postgres
//   sent a 50-row review page's rows), read by a client with Nagle on (as postgres.js's sockets are):
//   through countingProxy as it is, and as it was (`noDelay: false`);
// - the same through Postgres itself: postgres.js reading a 14 KiB row through the proxy.
// A stalled round trip takes over 30 ms; on loopback the others take well under 5.
import { createConnection, createServer } from 'node:net';
import postgres from 'postgres';
import { countingProxy, quantile } from '../harness.js';

const ROUND_TRIPS = 200;
const FIRST = 8192;
const REST = 6400;
const STALL_MS = 30;

/** A server that answers every chunk it reads with FIRST bytes, then REST bytes 1 ms later. */
async function twoFlushServer() {
	const server = createServer({ noDelay: true }, (socket) => {
		socket.on('data', () => {
			socket.write(Buffer.alloc(FIRST, 1));
			setTimeout(() => socket.write(Buffer.alloc(REST, 2)), 1);
		});
		socket.on('error', () => socket.destroy());
	});
	await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
	const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
	return { url: `postgres://bench@127.0.0.1:${port}/bench`, close: () => server.close() };
}

/**
 * ROUND_TRIPS sequential requests of 41 bytes on one socket (Nagle on, as postgres.js leaves it), each
 * waiting for FIRST + REST bytes.
 * @param {string} url
 */
async function roundTrips(url) {
	const { hostname, port } = new URL(url);
	const socket = createConnection({ host: hostname, port: Number(port) });
	await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
	/** @type {number[]} */
	const latencies = [];
	try {
		for (let i = 0; i < ROUND_TRIPS; i++) {
			const started = performance.now();
			await new Promise((resolve) => {
				let received = 0;
				/** @param {Buffer} chunk */
				const onData = (chunk) => {
					received += chunk.length;
					if (received < FIRST + REST) return;
					socket.off('data', onData);
					resolve(undefined);
				};
				socket.on('data', onData);
				socket.write(Buffer.alloc(41));
			});
			latencies.push(performance.now() - started);
		}
	} finally {
		socket.destroy();
	}
	return latencies;
}

/**
 * ROUND_TRIPS sequential reads of a 14 KiB value through postgres.js.
 * @param {string} url
 */
async function postgresRoundTrips(url) {
	const sql = postgres(url, { max: 1, onnotice: () => {} });
	/** @type {number[]} */
	const latencies = [];
	try {
		await sql`select 1`;
		for (let i = 0; i < ROUND_TRIPS; i++) {
			const started = performance.now();
			await sql`select repeat('x', ${FIRST + REST}) as v`;
			latencies.push(performance.now() - started);
		}
	} finally {
		await sql.end();
	}
	return latencies;
}

/**
 * @param {number[]} latencies
 * @returns {import('../harness.js').Rate & { stalls: number }}
 */
function summary(latencies) {
	const sorted = [...latencies].sort((a, b) => a - b);
	const p50 = quantile(sorted, 0.5);
	return {
		rps: 1000 / p50,
		p50,
		p99: quantile(sorted, 0.99),
		errors: 0,
		stalls: sorted.filter((ms) => ms > STALL_MS).length
	};
}

/** @type {import('../harness.js').Scenario} */
export default async function stall({ databaseUrl }) {
	const fake = await twoFlushServer();
	/** @type {import('../harness.js').Row[]} */
	const rows = [];
	try {
		for (const [label, measure, url] of /** @type {const} */ ([
			['two-flush server', roundTrips, fake.url],
			['Postgres, 14 KiB row, postgres.js', postgresRoundTrips, databaseUrl]
		])) {
			const direct = summary(await measure(url));
			for (const noDelay of [true, false]) {
				const proxy = await countingProxy(url, { noDelay });
				try {
					const { stalls, ...through } = summary(await measure(proxy.url));
					rows.push({
						name: `${label}: ${ROUND_TRIPS} sequential round trips through countingProxy ${noDelay ? 'as it is (noDelay)' : 'as it was (Nagle on)'}, over ${STALL_MS} ms: ${stalls} (direct: ${direct.stalls}) (vs direct)`,
						...through,
						baseline: direct,
						target: 'no round trip over 30 ms'
					});
				} finally {
					await proxy.close();
				}
			}
		}
	} finally {
		fake.close();
	}
	return rows;
}
