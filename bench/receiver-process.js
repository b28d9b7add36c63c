// @ts-check
// A webhook receiver in a process of its own (bench/scenarios/webhooks.js), so that taking the
// portal's deliveries costs the load generator nothing; and a lean one, so that it takes as little as
// possible of the CPU the portal and Postgres share with it: plain TCP, each request read only as far
// as its headers' end and its Content-Length, then 204. It counts distinct `webhook-id`s.
// GET /count answers how many arrived; DELETE /count forgets them. It prints its port once listening.
import net from 'node:net';

const received = new Set();
const NO_CONTENT = 'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n';
const HEADER_END = '\r\n\r\n';

const server = net.createServer((socket) => {
	socket.setNoDelay(true);
	let pending = '';
	socket.setEncoding('latin1');
	socket.on('data', (/** @type {string} */ chunk) => {
		pending += chunk;
		for (;;) {
			const end = pending.indexOf(HEADER_END);
			if (end < 0) return;
			const head = pending.slice(0, end);
			const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
			const total = end + HEADER_END.length + length;
			if (pending.length < total) return;
			pending = pending.slice(total);
			const [method, path] = head.split(' ', 2);
			if (path === '/count' && method === 'GET') {
				const body = String(received.size);
				socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);
				continue;
			}
			if (path === '/count' && method === 'DELETE') received.clear();
			else received.add(/\r\nwebhook-id:\s*([^\r]*)/i.exec(head)?.[1]);
			socket.write(NO_CONTENT);
		}
	});
	socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => {
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	process.stdout.write(`${address.port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
