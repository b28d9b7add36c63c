import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawAnswer {
	status: number;
	headers: string;
	body: string;
}

/**
 * One HTTP/1.1 request written byte for byte on a socket, so the request target reaches the server
 * exactly as spelled (fetch and curl would normalise `\`, dot segments and more first).
 */
export function rawRequest(
	port: number,
	target: string,
	options: { method?: string; headers?: Record<string, string>; timeoutMs?: number } = {}
): Promise<RawAnswer> {
	const { method = 'GET', headers = {}, timeoutMs = 15_000 } = options;
	const head = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
	for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
	return new Promise((resolve, reject) => {
		const socket = connect(port, '127.0.0.1', () => socket.write(head.join('\r\n') + '\r\n\r\n'));
		const chunks: Buffer[] = [];
		socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer to ${target} within ${timeoutMs} ms`)));
		socket.on('data', (c: Buffer) => chunks.push(c));
		socket.on('error', reject);
		socket.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			const split = text.indexOf('\r\n\r\n');
			const headText = split === -1 ? text : text.slice(0, split);
			const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headText)?.[1]);
			resolve({ status, headers: headText, body: split === -1 ? '' : text.slice(split + 4) });
		});
	});
}

/**
 * Opens a request and trickles it: the head (or only its first line), then one byte every `everyMs`.
 * Resolves with how long the server kept the connection open and what it answered.
 */
export function trickle(
	port: number,
	options: { part: 'headers' | 'body'; everyMs: number; target?: string; giveUpMs: number }
): Promise<{ closedAfterMs: number; answer: string }> {
	const { part, everyMs, target = '/checkin', giveUpMs } = options;
	const started = Date.now();
	return new Promise((resolve, reject) => {
		let answer = '';
		const socket = connect(port, '127.0.0.1', () => {
			socket.write(
				part === 'body'
					? `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\nnote=`
					: `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n`
			);
		});
		const timer = setInterval(() => {
			if (!socket.destroyed) socket.write(part === 'body' ? 'a' : 'X: y\r\n');
		}, everyMs);
		const giveUp = setTimeout(() => {
			socket.destroy();
			reject(new Error(`the server still held the connection after ${giveUpMs} ms`));
		}, giveUpMs);
		socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
		socket.on('error', () => {});
		socket.on('close', () => {
			clearInterval(timer);
			clearTimeout(giveUp);
			resolve({ closedAfterMs: Date.now() - started, answer });
		});
	});
}

export interface SentAsSpelled {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/**
 * One request through node:http with the path sent exactly as spelled (fetch would normalise it) and
 * the server's own Origin, for sweeps that compare a hidden path's answer with an unknown one's.
 */
export function sendAsSpelled(
	base: URL,
	method: string,
	path: string,
	headers: Record<string, string>,
	body?: string
): Promise<SentAsSpelled> {
	return new Promise((resolve, reject) => {
		const req = request(
			{ host: base.hostname, port: base.port, method, path, headers: { ...headers, origin: base.origin } },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() })
				);
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}
