// better-auth with its SIWE plugin on Postgres (a pg Pool through better-auth's built-in Kysely adapter),
// served by a plain Node HTTP server through toNodeHandler: the first peer of bench/peers/run.js.
// Environment: PORT, DATABASE_URL, BETTER_AUTH_SECRET, MIGRATE=1 (create the schema first: a fresh database).
// Prints "Listening on <url>" once it serves.
import http from 'node:http';
import { betterAuth } from 'better-auth';
import { generateRandomString } from 'better-auth/crypto';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { siwe } from 'better-auth/plugins';
import pg from 'pg';
import { verifyMessage } from 'viem';

const port = Number(process.env.PORT ?? 3000);
const baseURL = `http://127.0.0.1:${port}`;
const CHAIN_ID = 137; // the portal's only chain (Polygon)

/** @type {import('better-auth').BetterAuthOptions} */
const options = {
	baseURL,
	secret: process.env.BETTER_AUTH_SECRET,
	database: new pg.Pool({ connectionString: process.env.DATABASE_URL }), // pg's default size, 10, as the portal's
	// The portal's session lasts 14 days; better-auth's default is 7 (the cost of a check does not depend on it).
	// Cookie cache: left at its default (off), so every get-session reads the session and user from Postgres.
	session: { expiresIn: 14 * 24 * 60 * 60 },
	// Its in-memory limiter (on by default in production) keys on the client IP, all loopback here: it
	// would answer 429 after 100 requests in 10 s. The portal has no per-IP limit on these endpoints.
	rateLimit: { enabled: false },
	plugins: [
		siwe({
			domain: `127.0.0.1:${port}`,
			// ERC-4361 nonces are alphanumeric; better-auth's default alphabet adds - and _.
			getNonce: async () => generateRandomString(32, 'a-z', 'A-Z', '0-9'),
			// As the plugin's docs show, with viem; plus the chain check the portal makes (the plugin takes any chain).
			verifyMessage: async ({ message, signature, address, chainId }) => {
				if (chainId !== CHAIN_ID) return false;
				try {
					return await verifyMessage({
						address: /** @type {`0x${string}`} */ (address),
						message,
						signature: /** @type {`0x${string}`} */ (signature)
					});
				} catch {
					return false;
				}
			}
		})
	]
};

if (process.env.MIGRATE === '1') {
	const { runMigrations } = await getMigrations(options);
	await runMigrations();
}
const auth = betterAuth(options);
const server = http.createServer(toNodeHandler(auth));
server.listen(port, '127.0.0.1', () => console.log(`Listening on ${baseURL}`));
