// The requests behind the findings of issue #32's held-out fuzz, which tests/http/fuzz.test.ts sends first:
// a regression of any of them fails the suite whatever the seed.
import type { Who } from './fuzz-routes';

const CURSOR_ID = '00000000-0000-4000-8000-000000000000';
/** The requests behind issue #32's findings: [route, who, method, path, content type, body, more headers]. */
export const KNOWN: [string, Who, string, string, string?, string?, Record<string, string>?][] = [
	['/admin', 'admin', 'GET', '/admin?q=ab%00'],
	['/admin/applications.csv', 'admin', 'GET', '/admin/applications.csv?q=ab%00'],
	['/admin', 'admin', 'GET', '/admin/__data.json?q=ab%00'],
	...['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-22T24:00:00Z', '0000-01-01T00:00:00Z'].flatMap(
		(at): [string, Who, string, string][] => [
			['/admin', 'admin', 'GET', `/admin?after=${at}_${CURSOR_ID}`],
			['/admin', 'admin', 'GET', `/admin?before=${at}_${CURSOR_ID}`]
		]
	),
	// The deliveries' paging (issue 61): a cursor past bigint, zero, negative, a float, a prototype name.
	...['99999999999999999999', '999999999999999', '0', '-1', '1.5', '1e3', '__proto__', '%00'].flatMap(
		(before): [string, Who, string, string][] => [
			['/admin/webhooks', 'admin', 'GET', `/admin/webhooks?before=${before}`],
			['/admin/webhooks', 'member', 'GET', `/admin/webhooks?before=${before}`]
		]
	),
	['/admin/webhooks', 'admin', 'POST', '/admin/webhooks?/retry', 'text/plain', 'deliveryId=1'],
	['/admin/webhooks', 'admin', 'POST', '/admin/webhooks?/retry', 'multipart/form-data; boundary=x', '--x\r\nbroken'],
	...['__proto__', 'hasOwnProperty', 'valueOf', 'toLocaleString', 'toString'].flatMap(
		(done): [string, Who, string, string][] => [
			['/admin', 'admin', 'GET', `/admin?done=${done}`],
			['/admin/applications/[id]', 'admin', 'GET', `/admin/applications/[id]?done=${done}`]
		]
	),
	// The public programme list (issue 57): whatever the query or method, a JSON answer and never a 5xx.
	['/api/programs', 'visitor', 'GET', '/api/programs?after=%00&program=__proto__'],
	['/api/programs', 'member', 'POST', '/api/programs', 'application/json', '{"slug":"x"}'],
	['/admin', 'visitor', 'GET', '/admin'],
	['/admin', 'member', 'GET', '/admin'],
	...(['visitor', 'member', 'admin'] as Who[]).flatMap((who) =>
		['default', '__proto__', 'hasOwnProperty', 'constructor', 'toString'].map(
			(name): [string, Who, string, string, string, string] => [
				'/apply',
				who,
				'POST',
				`/apply?/${name}`,
				'application/x-www-form-urlencoded',
				'displayName=A&motivation=B'
			]
		)
	),
	[
		'/apply',
		'visitor',
		'POST',
		'/apply?/toString',
		'application/x-www-form-urlencoded',
		'x=1',
		{ accept: 'application/json', 'x-sveltekit-action': 'true' }
	],
	[
		'/api/auth/verify',
		'visitor',
		'POST',
		'/api/auth/verify',
		'application/x-www-form-urlencoded',
		'message=x',
		{ origin: 'http://evil.example' }
	],
	// Issue 47's run: a prerendered page's data under a locale prefix made SvelteKit fetch the base locale's
	// file from the request's origin (500 when that failed); it is no route now.
	...['DELETE', 'POST', 'GET'].map((method): [string, Who, string, string, string, string] => [
		'/',
		'admin',
		method,
		`/%7Ah-Hans/__data.json?x-sveltekit-invalidated=2026-02-30T00:00:00Z_${CURSOR_ID}&__proto__=%3Cscript%3E`,
		'text/plain',
		'x'
	]),
	['/setup', 'member', 'POST', '/es/setup', 'application/x-www-form-urlencoded', 'a=b']
];
