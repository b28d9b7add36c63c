import { json } from '@sveltejs/kit';
import { sessionCheckBody } from '$lib/server/auth/session-check';
import type { RequestHandler } from './$types';

/**
 * The caller's own address and admin flag (sessionCheckBody). The portal's Node server answers a plain
 * `GET /api/auth/me` itself (decision 0037); this route answers every other spelling, and on Vercel.
 * Both read the session with sessionAndMember (here through the handles' event.locals) and answer
 * sessionCheckBody: one implementation, two ways in ($lib/server/auth/session-check.ts).
 */
export const GET: RequestHandler = ({ locals }) => json(sessionCheckBody(locals.member));
