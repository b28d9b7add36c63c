import { describe, expect, it } from 'vitest';
import type { Handle, RequestEvent } from '@sveltejs/kit';
import { chain } from './chain';

const eventFor = (path: string) => ({ url: new URL(`http://portal.test${path}`) }) as unknown as RequestEvent;

describe('chain', () => {
	it('runs the handles in order around resolve, each seeing what the one before passed on', async () => {
		const seen: string[] = [];
		const named =
			(name: string): Handle =>
			async ({ event, resolve }) => {
				seen.push(`${name} in ${event.url.pathname}`);
				const response = await resolve(name === 'b' ? eventFor('/rewritten') : event);
				seen.push(`${name} out`);
				response.headers.append('x-order', name);
				return response;
			};
		const handle = chain(named('a'), named('b'), named('c'));
		const response = await handle({
			event: eventFor('/start'),
			resolve: (event) => {
				seen.push(`resolve ${event.url.pathname}`);
				return new Response('ok');
			}
		});
		expect(seen).toEqual([
			'a in /start',
			'b in /start',
			'c in /rewritten',
			'resolve /rewritten',
			'c out',
			'b out',
			'a out'
		]);
		expect(response.headers.get('x-order')).toBe('c, b, a');
	});

	it('lets a handle answer without calling the rest, and passes an error thrown inside outwards', async () => {
		const calls: string[] = [];
		const refuse: Handle = () => new Response('refused', { status: 403 });
		const never: Handle = ({ event, resolve }) => (calls.push('never'), resolve(event));
		const refused = await chain(refuse, never)({ event: eventFor('/'), resolve: () => new Response('ok') });
		expect(refused.status).toBe(403);
		expect(calls).toEqual([]);

		const failing = chain(
			({ event, resolve }) => resolve(event),
			() => {
				throw new Error('boom');
			}
		);
		await expect((async () => failing({ event: eventFor('/'), resolve: () => new Response('ok') }))()).rejects.toThrow(
			'boom'
		);
	});

	it('hands the resolve options a handle gives to the final resolve', async () => {
		let given: unknown;
		const preload = () => true;
		const handle = chain(
			({ event, resolve }) => resolve(event, { preload }),
			({ event, resolve }) => resolve(event)
		);
		await handle({
			event: eventFor('/'),
			resolve: (_event, options) => ((given = options?.preload), new Response('ok'))
		});
		expect(given).toBe(preload);
	});

	it("runs every handle's page-chunk transform, the innermost first, as sequence() does", async () => {
		let transform: ((input: { html: string; done: boolean }) => unknown) | undefined;
		const handle = chain(
			({ event, resolve }) => resolve(event, { transformPageChunk: ({ html }) => html.replace('%a%', 'A') }),
			({ event, resolve }) => resolve(event),
			({ event, resolve }) =>
				resolve(event, { transformPageChunk: ({ html }) => html.replace('%b%', 'B').replace('A', 'not first') })
		);
		await handle({
			event: eventFor('/'),
			resolve: (_event, options) => ((transform = options?.transformPageChunk), new Response('ok'))
		});
		expect(await transform?.({ html: '%a% %b%', done: true })).toBe('A B');
	});

	it('with no handles is resolve itself', async () => {
		const response = await chain()({ event: eventFor('/'), resolve: () => new Response('plain') });
		expect(await response.text()).toBe('plain');
	});
});
