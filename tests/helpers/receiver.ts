import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
}

/** An answer with headers, after `delayMs`. */
export interface Answer {
	status: number;
	headers?: Record<string, string>;
	delayMs?: number;
}

/** What the receiver answers to its `n`th request (0-based): a status, an Answer, or 'hang' for no answer. */
export type Responder = (request: Received, n: number) => number | Answer | 'hang';

/** A webhook receiver on loopback that keeps every request it gets. */
export class Receiver {
	readonly received: Received[] = [];
	private server: Server | null = null;
	private waiting: Array<() => void> = [];
	respond: Responder = () => 204;
	url = '';
	/** The most requests it had unanswered at once. */
	maxInFlight = 0;
	private inFlight = 0;

	async start(path = '/hook'): Promise<this> {
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
				const answer = this.respond(request, this.received.length);
				this.received.push(request);
				this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
				res.once('close', () => this.inFlight--);
				for (const notify of this.waiting.splice(0)) notify();
				if (answer === 'hang') return;
				const { status, headers = {}, delayMs = 0 } = typeof answer === 'number' ? { status: answer } : answer;
				const send = () => res.writeHead(status, headers).end();
				if (delayMs > 0) setTimeout(send, delayMs);
				else send();
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const address = server.address();
		this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${path}`;
		this.server = server;
		return this;
	}

	/** Resolves once `predicate` holds for what has arrived, or rejects after `ms`. */
	async until(predicate: (received: Received[]) => boolean, ms = 15_000): Promise<Received[]> {
		const deadline = Date.now() + ms;
		while (!predicate(this.received)) {
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`receiver: condition not met within ${ms} ms (${this.received.length} requests)`);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, Math.min(left, 200));
				this.waiting.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
		return this.received;
	}

	async stop(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
		this.server = null;
	}
}

/** A fresh `whsec_` secret. */
export const newSecret = () => `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;

/** The event a receiver verified with standardwebhooks; throws when the signature does not verify. */
export function verified(
	secret: string,
	request: Received
): { type: string; timestamp: string; data: Record<string, unknown> } {
	return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as never;
}

/** A "webhook receiver" that answers every request with bytes that are not HTTP, then hangs up. */
export async function garbageReceiver(): Promise<{ url: string; hits: () => number; stop: () => Promise<void> }> {
	let hits = 0;
	const server: TcpServer = createTcpServer((socket) => {
		socket.once('data', () => {
			hits++;
			socket.end('\u0000\u00ffnot http at all\r\n\r\n');
		});
		socket.on('error', () => {});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		hits: () => hits,
		stop: () => new Promise((resolve) => server.close(() => resolve()))
	};
}
