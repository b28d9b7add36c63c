import { json } from '@sveltejs/kit';
import { sessionCheckBody } from '$lib/server/auth/session-check';
import type { RequestHandler } from './$types';

/**
 * The caller's own address and admin flag (sessionCheckBody). The portal's Node server answers a plain
 * `GET /api/auth/me` itself (decision 0037); this route answers every other spelling, and on Vercel.
 */
export const GET: RequestHandler = ({ locals }) => json(sessionCheckBody(locals.member));
