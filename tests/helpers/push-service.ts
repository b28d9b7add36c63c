import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type Server } from 'node:http';
// Its types: tests/helpers/http_ece.d.ts.
import ece from 'http_ece';

/** A browser's subscription as the test holds it: the keys a real browser would keep to itself. */
export interface TestSubscription {
	endpoint: string;
	keys: { p256dh: string; auth: string };
	ecdh: ECDH;
}

/** One push message as the push service received and decrypted it. */
export interface Pushed {
	path: string;
	payload: {
		title: string;
		body: string;
		url: string;
		program?: { slug: string; name: string };
		round?: { id: number; name: string };
	};
	topic: string | undefined;
	ttl: string | undefined;
}

const b64 = (b: Buffer) => b.toString('base64url');

/**
 * A Web Push service on loopback (RFC 8030): every message must carry a valid VAPID JWT (RFC 8292,
 * ES256 by the `k` key, `aud` this origin, `exp` within 24 h, `sub` the configured subject), and is
 * decrypted (RFC 8291 aes128gcm) with the keys of the subscription it was sent to, as the browser would.
 */
export class PushService {
	readonly pushed: Pushed[] = [];
	readonly refused: string[] = [];
	/** Requests per path, delivered or not. */
	readonly hits = new Map<string, number>();
	/** The Topic header of every request, in order, answered or not. */
	readonly topics: (string | undefined)[] = [];
	/** What a path answers to its nth request; 201 by default; 0 never answers (a push service that hangs). */
	respond: (path: string, n: number) => number = () => 201;
	url = '';
	private server: Server | null = null;
	private readonly subscriptions = new Map<string, TestSubscription>();

	constructor(
		private readonly vapidPublicKey: string,
		private readonly subject: string
	) {}

	async start(): Promise<this> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const path = req.url ?? '';
				const n = this.hits.get(path) ?? 0;
				this.hits.set(path, n + 1);
				this.topics.push(req.headers.topic as string | undefined);
				const problem = this.check(req.headers as Record<string, string>);
				if (problem) {
					this.refused.push(problem);
					res.writeHead(403).end();
					return;
				}
				const status = this.respond(path, n);
				if (status === 0) return;
				if (status >= 200 && status < 300) {
					const sub = this.subscriptions.get(path)!;
					const plain = ece.decrypt(Buffer.concat(chunks), {
						version: 'aes128gcm',
						privateKey: sub.ecdh,
						authSecret: sub.keys.auth
					});
					this.pushed.push({
						path,
						payload: JSON.parse(plain.toString('utf8')) as Pushed['payload'],
						topic: req.headers.topic as string | undefined,
						ttl: req.headers.ttl as string | undefined
					});
				}
				res.writeHead(status).end();
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		const address = this.server.address();
		this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
		return this;
	}

	/** A new browser subscription at `path`, its keys made here as a browser makes them (P-256, 16-byte auth). */
	subscription(path: string): TestSubscription {
		const ecdh = createECDH('prime256v1');
		ecdh.generateKeys();
		const sub = {
			endpoint: this.url + path,
			keys: { p256dh: b64(ecdh.getPublicKey()), auth: b64(randomBytes(16)) },
			ecdh
		};
		this.subscriptions.set(path, sub);
		return sub;
	}

	/** Why the request's VAPID authorization is not valid, or null. */
	private check(headers: Record<string, string>): string | null {
		if (headers['content-encoding'] !== 'aes128gcm') return 'not aes128gcm';
		const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(headers.authorization ?? '');
		if (!match) return 'no vapid authorization';
		const [, jwt, k] = match;
		if (k !== this.vapidPublicKey) return 'another key';
		const [h, p, s] = jwt!.split('.');
		const point = Buffer.from(k, 'base64url');
		const key = createPublicKey({
			key: { kty: 'EC', crv: 'P-256', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33, 65)) },
			format: 'jwk'
		});
		const signed = verify(
			'sha256',
			Buffer.from(`${h}.${p}`),
			{ key, dsaEncoding: 'ieee-p1363' },
			Buffer.from(s!, 'base64url')
		);
		if (!signed) return 'bad signature';
		const header = JSON.parse(Buffer.from(h!, 'base64url').toString()) as { alg?: string };
		const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as { aud?: string; exp?: number; sub?: string };
		const now = Date.now() / 1000;
		if (header.alg !== 'ES256') return 'not ES256';
		if (claims.aud !== this.url) return `aud ${claims.aud}`;
		if (!claims.exp || claims.exp < now || claims.exp > now + 24 * 3600 + 60) return 'bad exp';
		if (claims.sub !== this.subject) return `sub ${claims.sub}`;
		return null;
	}

	/** Resolves once `done` holds of what was pushed (checked every 50 ms, up to `ms`). */
	async until(done: (pushed: Pushed[]) => boolean, ms = 20_000): Promise<Pushed[]> {
		const end = Date.now() + ms;
		while (!done(this.pushed)) {
			if (Date.now() > end)
				throw new Error(`push service: not there within ${ms} ms; got ${JSON.stringify(this.pushed)}`);
			await new Promise((r) => setTimeout(r, 50));
		}
		return this.pushed;
	}

	stop(): Promise<void> {
		this.server?.closeAllConnections();
		return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}
}
