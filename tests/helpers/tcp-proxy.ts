import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './server';

/**
 * A TCP proxy on loopback in front of the Postgres server, so a test can take the database
 * away (refuse and cut every connection) and bring it back on the same address.
 */
export class TcpProxy {
	private server: Server | null = null;
	private sockets = new Set<Socket>();
	constructor(
		readonly port: number,
		private readonly target: { host: string; port: number }
	) {}

	async up(): Promise<void> {
		if (this.server) return;
		const server = createServer((client) => {
			const upstream = createConnection(this.target);
			for (const s of [client, upstream]) {
				this.sockets.add(s);
				s.on('close', () => this.sockets.delete(s));
				s.on('error', () => s.destroy());
			}
			client.pipe(upstream).pipe(client);
			client.on('close', () => upstream.destroy());
			upstream.on('close', () => client.destroy());
		});
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(this.port, '127.0.0.1', () => resolve());
		});
		this.server = server;
	}

	async down(): Promise<void> {
		const server = this.server;
		this.server = null;
		for (const s of this.sockets) s.destroy();
		if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}

/** A TcpProxy (still down) in front of the server that `url` names, and the URL that goes through it. */
export async function proxyFor(url: string): Promise<{ proxy: TcpProxy; proxiedUrl: string }> {
	const target = new URL(url);
	const proxy = new TcpProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
	const proxied = new URL(url);
	proxied.hostname = '127.0.0.1';
	proxied.port = String(proxy.port);
	return { proxy, proxiedUrl: proxied.toString() };
}
