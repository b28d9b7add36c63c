#!/usr/bin/env node
// @ts-check
// Renders deploy/nginx/portal.conf.template into an nginx http-context file (the tests render the
// same template, so what they check is what is shipped).
//
//   node deploy/nginx/render.js --upstream 127.0.0.1:3000 --mode log|enforce \
//     [--listen 80] [--server-name portal.example.org] [--trusted-proxy 10.0.0.0/8 ...]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const TEMPLATE_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'portal.conf.template');

// One address or CIDR (IPv4 or IPv6), or unix: — what set_real_ip_from accepts; no spaces or ';'.
const ADDRESS = /^(unix:|[0-9a-fA-F.:]+(\/\d{1,3})?)$/;
// host:port or unix:/path for the upstream; a port, or address:port, for listen.
const UPSTREAM = /^(unix:\/[^\s;{}]+|[A-Za-z0-9.-]+:\d{1,5}|\[[0-9a-fA-F:]+\]:\d{1,5})$/;
const LISTEN = /^(\d{1,5}|[A-Za-z0-9.-]+:\d{1,5}|\[[0-9a-fA-F:]+\]:\d{1,5})$/;
const SERVER_NAME = /^[A-Za-z0-9._*~^-]+( [A-Za-z0-9._*~^-]+)*$/;

/**
 * @param {{ upstream: string, mode: 'log' | 'enforce', listen?: string, serverName?: string, trustedProxies?: string[] }} options
 * @returns {string} the rendered configuration
 */
export function renderNginxConfig(options, template = readFileSync(TEMPLATE_PATH, 'utf8')) {
	const { upstream, mode, listen = '80', serverName = '_', trustedProxies = [] } = options;
	if (mode !== 'log' && mode !== 'enforce') throw new Error('mode must be log or enforce');
	if (!UPSTREAM.test(upstream))
		throw new Error(`upstream must be host:port or unix:/path, got ${JSON.stringify(upstream)}`);
	if (!LISTEN.test(listen)) throw new Error(`listen must be a port or address:port, got ${JSON.stringify(listen)}`);
	if (!SERVER_NAME.test(serverName)) throw new Error(`server name not allowed: ${JSON.stringify(serverName)}`);
	for (const p of trustedProxies)
		if (!ADDRESS.test(p)) throw new Error(`trusted proxy must be an address or CIDR, got ${JSON.stringify(p)}`);

	/** @type {Record<string, string>} */
	const values = {
		SET_REAL_IP_FROM: trustedProxies.length
			? trustedProxies.map((p) => `set_real_ip_from ${p};`).join('\n')
			: '# (no trusted proxy: nginx faces the clients, X-Forwarded-For is ignored)',
		LIMIT_REQ_DRY_RUN: mode === 'log' ? 'on' : 'off',
		UPSTREAM: upstream,
		LISTEN: listen,
		SERVER_NAME: serverName
	};
	const rendered = template.replace(/\{\{([A-Z_]+)\}\}/g, (/** @type {string} */ whole, /** @type {string} */ name) => {
		const value = values[name];
		if (value === undefined) throw new Error(`unknown placeholder ${whole} in the template`);
		return value;
	});
	if (rendered.includes('{{')) throw new Error('a placeholder was left unrendered');
	return rendered;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	try {
		const { values } = parseArgs({
			options: {
				upstream: { type: 'string' },
				mode: { type: 'string' },
				listen: { type: 'string' },
				'server-name': { type: 'string' },
				'trusted-proxy': { type: 'string', multiple: true }
			},
			strict: true
		});
		if (!values.upstream || !values.mode) throw new Error('--upstream and --mode are required');
		process.stdout.write(
			renderNginxConfig({
				upstream: values.upstream,
				mode: /** @type {'log' | 'enforce'} */ (values.mode),
				listen: values.listen,
				serverName: values['server-name'],
				trustedProxies: values['trusted-proxy'] ?? []
			})
		);
	} catch (err) {
		console.error(`render: ${err instanceof Error ? err.message : String(err)}
Usage: node deploy/nginx/render.js --upstream HOST:PORT --mode log|enforce [--listen 80] [--server-name NAME] [--trusted-proxy CIDR ...]`);
		process.exitCode = 1;
	}
}
