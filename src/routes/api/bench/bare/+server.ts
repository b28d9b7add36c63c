import { json } from '@sveltejs/kit';
import type { RequestHandler } from './$types';

// The baseline of the benchmarks in bench/: the cheapest JSON answer this server can give.
export const GET: RequestHandler = () => json({ ok: true });
