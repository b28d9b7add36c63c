// @ts-check
// One invocation of a Vercel function from a build's .vercel/output, in a process of its own that ends
// after it (tests/helpers/vercel-output.ts starts one per request): the request comes as JSON on
// stdin, the response goes as JSON to fd 3. Like the platform, it offers `waitUntil` (the request
// context that @vercel/functions reads) and keeps the invocation alive until that work settles.
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

/** @param {string} text @returns {unknown} */
const parse = (text) => JSON.parse(text);

const funcDir = process.argv[2] ?? '';
const vc = /** @type {{ handler: string }} */ (parse(readFileSync(path.join(funcDir, '.vc-config.json'), 'utf8')));
const input = /** @type {{ url: string, method: string, headers: [string, string][], body: string | null }} */ (
	parse(readFileSync(0, 'utf8'))
);

/** @type {Promise<unknown>[]} */
const pending = [];
/** @type {Record<symbol, unknown>} */ (globalThis)[Symbol.for('@vercel/request-context')] = {
	get: () => ({ waitUntil: (/** @type {Promise<unknown>} */ p) => void pending.push(p) })
};

/** @type {unknown} */
const loaded = await import(pathToFileURL(path.join(funcDir, vc.handler)).href);
const handler = /** @type {{ default: { fetch(request: Request): Promise<Response> } }} */ (loaded);
const request = new Request(input.url, {
	method: input.method,
	headers: input.headers,
	body: input.body === null ? undefined : Buffer.from(input.body, 'base64')
});
const response = await handler.default.fetch(request);
const body = Buffer.from(await response.arrayBuffer());
const headers = [...response.headers].filter(([name]) => name !== 'set-cookie');
for (const cookie of response.headers.getSetCookie()) headers.push(['set-cookie', cookie]);
const out = createWriteStream('', { fd: 3 });
await new Promise((resolve) =>
	out.end(JSON.stringify({ status: response.status, headers, body: body.toString('base64') }), () => resolve(null))
);
// The response is out; the platform keeps the function until the work handed to waitUntil settles.
await Promise.allSettled(pending);
process.exit(0);
