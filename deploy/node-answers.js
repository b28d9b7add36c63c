// @ts-check
// The hand-off between the app and the portal's Node server (deploy/server.js), decision 0037: at
// start-up the app (src/hooks.server.ts init) emits this process event with the few answers the
// server may give without SvelteKit, keyed by "METHOD request-target" (exact, query string included).
// build/index.js has the server listen (listenForNodeAnswers) before it imports the handler that starts
// the app; where no such server runs (Vercel, tests in one process) nobody listens and every request
// goes through SvelteKit as before.

/** The process event that carries the answers: `Record<string, NodeAnswer>`. */
export const NODE_ANSWERS_EVENT = 'member-portal:node-answers';

/**
 * An answer the Node server gives itself. If it throws or rejects before it has written anything, or
 * resolves to `false` (a request it declines, before reading any of its body), the server passes the
 * request on to SvelteKit.
 * @typedef {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void | boolean>} NodeAnswer
 */
