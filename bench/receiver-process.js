// @ts-check
// A webhook receiver in a process of its own (bench/scenarios/webhooks.js), so that taking the
// portal's deliveries costs the load generator nothing. POST anything: 204, and the webhook-id is
// counted; GET /count answers how many distinct ids arrived; DELETE /count forgets them. It prints
// its port on stdout once listening.
import http from 'node:http';

const received = new Set();
const server = http.createServer((req, res) => {
	if (req.method === 'GET' && req.url === '/count') return void res.end(String(received.size));
	if (req.method === 'DELETE' && req.url === '/count') {
		received.clear();
		return void res.writeHead(204).end();
	}
	req.resume();
	req.on('end', () => {
		received.add(req.headers['webhook-id']);
		res.writeHead(204).end();
	});
});
server.listen(0, '127.0.0.1', () => {
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	process.stdout.write(`${address.port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
