import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLine } from './observability';

/** What pino itself writes for the same call, with the portal's options (observability.ts). */
function pinoLine(fields: Record<string, unknown>): string {
	let line = '';
	const logger = pino(
		{ base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
		{ write: (s: string) => void (line = s) }
	);
	logger.info(fields, 'request');
	return line;
}

describe('the request log line', () => {
	it('is the line pino writes for the same fields, key for key and in the same order', () => {
		fc.assert(
			fc.property(
				fc.uuid(),
				fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'PATCH'),
				fc.oneof(fc.constant('/api/auth/me'), fc.constant('unmatched'), fc.string(), fc.string({ unit: 'binary' })),
				fc.integer({ min: 100, max: 599 }),
				fc.double({ min: 0, max: 1e6, noNaN: true }).map((ms) => Math.round(ms * 10) / 10),
				(requestId, method, route, status, durationMs) => {
					const fields = { requestId, method, route, status, durationMs };
					const ours = requestLine(requestId, method, route, status, durationMs);
					expect(ours.endsWith('\n')).toBe(true);
					const mine = JSON.parse(ours) as Record<string, unknown>;
					const theirs = JSON.parse(pinoLine(fields)) as Record<string, unknown>;
					expect(Object.keys(mine)).toEqual(Object.keys(theirs));
					expect({ ...mine, time: 0 }).toEqual({ ...theirs, time: 0 });
					expect(Math.abs(Date.parse(String(mine.time)) - Date.now())).toBeLessThan(5_000);
				}
			)
		);
	});

	it('keeps a route id with quotes, backslashes and line breaks inside its field', () => {
		const line = requestLine('4f0c1d2e-aaaa-4bbb-8ccc-0123456789ab', 'GET', '/a"b\\c\n{"level":"error"}', 200, 1.5);
		expect(line.split('\n')).toHaveLength(2);
		expect(JSON.parse(line)).toMatchObject({ route: '/a"b\\c\n{"level":"error"}', level: 'info', msg: 'request' });
	});
});
