import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderNginxConfig } from '../../deploy/nginx/render.js';
import { freePort } from './server';

/** Debian's nginx (nginx-light; `.ci/run` installs it), or undefined where it is absent. */
export const NGINX_BIN = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
export const NGINX_MISSING_REASON =
	'nginx is not installed (apt-get install nginx-light, as .ci/run does): the edge-limit tests against nginx are skipped';

export interface RunningNginx {
	url: string;
	port: number;
	dir: string;
	process: ChildProcess;
	errorLog(): string;
	stop(): Promise<void>;
}

/**
 * Runs nginx in the foreground with the shipped deploy/nginx template rendered for `upstream`,
 * everything (pid, logs, temp files) in a fresh temp folder, on a free loopback port.
 */
export async function startNginx(options: {
	upstream: string;
	mode: 'log' | 'enforce';
	trustedProxies?: string[];
	/** A port chosen beforehand (the portal's ORIGIN and SIWE domain must name it); default: a free one. */
	port?: number;
}): Promise<RunningNginx> {
	if (!NGINX_BIN) throw new Error(NGINX_MISSING_REASON);
	const dir = mkdtempSync(path.join(tmpdir(), 'portal-nginx-'));
	const port = options.port ?? (await freePort());
	const site = renderNginxConfig({
		upstream: options.upstream,
		mode: options.mode,
		listen: `127.0.0.1:${port}`,
		trustedProxies: options.trustedProxies ?? []
	});
	writeFileSync(path.join(dir, 'portal.conf'), site);
	// Run as root, nginx's workers drop to another user: they must reach the temp folders it creates.
	chmodSync(dir, 0o755);
	const errorLogPath = path.join(dir, 'error.log');
	// The main file stands in for Debian's /etc/nginx/nginx.conf: the site is included in http {}.
	writeFileSync(
		path.join(dir, 'nginx.conf'),
		`daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${errorLogPath} info;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path ${dir}/body;
	proxy_temp_path ${dir}/proxy;
	fastcgi_temp_path ${dir}/fastcgi;
	uwsgi_temp_path ${dir}/uwsgi;
	scgi_temp_path ${dir}/scgi;
	include ${dir}/portal.conf;
}
`
	);
	const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', errorLogPath];
	const syntax = spawnSync(NGINX_BIN, ['-t', ...args], { encoding: 'utf8' });
	if (syntax.status !== 0) throw new Error(`nginx rejected the rendered configuration:\n${syntax.stderr}`);

	const child = spawn(NGINX_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	child.stdout.on('data', (c) => (output += c));
	child.stderr.on('data', (c) => (output += c));
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const errorLog = () => (existsSync(errorLogPath) ? readFileSync(errorLogPath, 'utf8') : '');

	const deadline = Date.now() + 20_000;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`nginx exited at start:\n${output}\n${errorLog()}`);
		try {
			await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
			break;
		} catch {
			if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}:\n${output}\n${errorLog()}`);
			await new Promise((r) => setTimeout(r, 100));
		}
	}

	return {
		url: `http://127.0.0.1:${port}`,
		port,
		dir,
		process: child,
		errorLog,
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
				if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
			}
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

/**
 * The shipped nginx limits count per clock minute (a fixed window): a burst that must meet the
 * limit waits out the last `seconds` of a minute, so it cannot be split across two windows.
 */
export async function roomInMinute(seconds = 20): Promise<void> {
	const now = new Date();
	const left = 60_000 - (now.getSeconds() * 1000 + now.getMilliseconds());
	if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 250));
}
