// A local stand-in for Vercel serving a build's .vercel/output (Build Output API v3): the routes of
// config.json in order (headers, redirects, rewrites, `handle: filesystem`), the static files with
// their overrides, and each function's handler invoked per request in a fresh process that ends after
// it (tests/helpers/vercel-invoke.js), so nothing lives between requests, as on a frozen function.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { parseJson } from './json';

interface Route {
	src?: string;
	dest?: string;
	headers?: Record<string, string>;
	status?: number;
	continue?: boolean;
	handle?: string;
}
interface OutputConfig {
	routes: Route[];
	overrides?: Record<string, { path?: string; contentType?: string }>;
	crons?: { path: string; schedule: string }[];
}
interface Invocation {
	status: number;
	headers: [string, string][];
	body: string;
}

const TYPES: Record<string, string> = {
	'.html': 'text/html; charset=utf-8',
	'.js': 'text/javascript',
	'.css': 'text/css',
	'.json': 'application/json',
	'.svg': 'image/svg+xml',
	'.png': 'image/png',
	'.txt': 'text/plain'
};
const INVOKER = path.resolve('tests/helpers/vercel-invoke.js');

export class VercelOutput {
	readonly config: OutputConfig;
	/** Every function process's output, for the logs a deployer would read. */
	logs = '';
	url = '';
	private server: Server | null = null;
	private readonly running = new Set<Promise<void>>();

	constructor(
		private readonly dir: string,
		/** The functions' environment (Vercel's project settings); VERCEL=1 is added as the platform does. */
		public env: Record<string, string>
	) {
		this.config = parseJson<OutputConfig>(readFileSync(path.join(dir, 'config.json'), 'utf8'));
	}

	async start(): Promise<this> {
		this.server = createServer((req, res) => void this.serve(req, res).catch((err) => fail(res, err)));
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		const address = this.server.address();
		this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
		return this;
	}

	/** Stops serving once every function process, and the work it was kept alive for, has ended. */
	async stop(): Promise<void> {
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
		await this.settled();
	}

	/** Resolves once every function process so far has ended (their waitUntil work included). */
	async settled(): Promise<void> {
		while (this.running.size > 0) await Promise.allSettled([...this.running]);
	}

	private async serve(req: IncomingMessage, res: ServerResponse) {
		const url = new URL(req.url ?? '/', this.url);
		const headers: Record<string, string> = {};
		let pathname = url.pathname;
		const routes = this.config.routes;
		const filesystem = routes.findIndex((r) => r.handle === 'filesystem');
		for (let i = 0; i < routes.length; i++) {
			const route = routes[i]!;
			if (i === filesystem) {
				if (this.serveStatic(pathname, headers, res)) return;
				continue;
			}
			if (route.handle || route.src === undefined) continue;
			const match = new RegExp(`^(?:${route.src})$`).exec(pathname);
			if (!match) continue;
			Object.assign(headers, route.headers ?? {});
			if (route.status && !route.dest) return send(res, route.status, headers, Buffer.alloc(0));
			if (route.dest) {
				const dest = route.dest.replace(/\$(\d+)/g, (_, n: string) => match[Number(n)] ?? '');
				// The root's function is index.func, as Vercel names it.
				const fn = path.join(this.dir, 'functions', `${dest === '/' ? '/index' : dest}.func`);
				if (existsSync(fn)) return this.invoke(fn, req, url, headers, res);
				pathname = dest;
			}
			// A matching route without `continue` ends its phase: before the filesystem, on to it; after, the end.
			if (route.continue) continue;
			if (i > filesystem) break;
			i = filesystem - 1;
		}
		send(res, 404, { ...headers, 'content-type': 'text/plain' }, Buffer.from('NOT_FOUND'));
	}

	private serveStatic(pathname: string, headers: Record<string, string>, res: ServerResponse): boolean {
		const staticDir = path.join(this.dir, 'static');
		const wanted = pathname.replace(/^\/+|\/+$/g, '');
		const override = Object.entries(this.config.overrides ?? {}).find(([, o]) => o.path === wanted);
		const file = override ? override[0] : decodeURIComponent(wanted);
		const full = path.join(staticDir, file);
		if (!full.startsWith(staticDir + path.sep) || !existsSync(full) || !statSync(full).isFile()) return false;
		const type = override?.[1].contentType ?? TYPES[path.extname(full)] ?? 'application/octet-stream';
		send(res, 200, { ...headers, 'content-type': type }, readFileSync(full));
		return true;
	}

	/** Runs the function for one request in a process of its own; a crash answers 500 as the platform does. */
	private async invoke(
		fn: string,
		req: IncomingMessage,
		url: URL,
		headers: Record<string, string>,
		res: ServerResponse
	) {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const requestHeaders = Object.entries(req.headers).flatMap(([name, value]) =>
			(Array.isArray(value) ? value : [value ?? '']).map((v) => [name, v] as [string, string])
		);
		requestHeaders.push(['x-forwarded-for', '127.0.0.1']);
		const input = JSON.stringify({
			url: url.href,
			method: req.method,
			headers: requestHeaders,
			body: chunks.length > 0 ? Buffer.concat(chunks).toString('base64') : null
		});
		const child = spawn(process.execPath, [INVOKER, fn], {
			cwd: fn,
			env: { PATH: process.env.PATH ?? '', ...this.env, VERCEL: '1' },
			stdio: ['pipe', 'pipe', 'pipe', 'pipe']
		});
		const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
		this.running.add(exited);
		void exited.then(() => this.running.delete(exited));
		child.stdout.on('data', (c: Buffer) => (this.logs += String(c)));
		child.stderr.on('data', (c: Buffer) => (this.logs += String(c)));
		child.stdin.end(input);
		let output = '';
		const fd3 = child.stdio[3] as NodeJS.ReadableStream;
		fd3.on('data', (c: Buffer) => (output += String(c)));
		// The answer as soon as the function has written it; its waitUntil work may still run.
		await new Promise<void>((resolve) => {
			fd3.once('end', resolve);
			void exited.then(resolve);
		});
		if (!output) return send(res, 500, { 'content-type': 'text/plain' }, Buffer.from('FUNCTION_INVOCATION_FAILED'));
		const answer = parseJson<Invocation>(output);
		for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
		const cookies = answer.headers.filter(([n]) => n === 'set-cookie').map(([, v]) => v);
		for (const [name, value] of answer.headers) if (name !== 'set-cookie') res.setHeader(name, value);
		if (cookies.length > 0) res.setHeader('set-cookie', cookies);
		res.writeHead(answer.status);
		res.end(Buffer.from(answer.body, 'base64'));
	}
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer) {
	res.writeHead(status, headers);
	res.end(body);
}

function fail(res: ServerResponse, err: unknown) {
	if (!res.headersSent) send(res, 502, { 'content-type': 'text/plain' }, Buffer.from(String(err)));
}
