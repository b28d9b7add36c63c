// Spellings a client can send for the two edge-limited endpoints (docs/edge-limits.md "Path spellings"):
// some the portal routes there, some it does not. tests/http/edge-nginx-paths.test.ts asks the built portal
// which; tests/integration/edge-vercel-paths.test.ts checks the Vercel rules against a model of it.
export const AUTH_SPELLINGS = [
	'/api/auth/nonce',
	'/api\\auth/nonce',
	'/api\\auth\\nonce',
	'/x/..\\api/auth/nonce',
	'/api/auth/x/..\\nonce',
	'/api%5Cauth/nonce',
	'/api%5cauth/nonce',
	'/api%2Fauth/nonce',
	'/api%2fauth%2fnonce',
	'//api/auth/nonce',
	'///api//auth//nonce',
	'/api/./auth/nonce',
	'/./api/auth/nonce',
	'/api/auth/./nonce',
	'/api/auth/../auth/nonce',
	'/x/../api/auth/nonce',
	'/api/x/../auth/nonce',
	'/../api/auth/nonce',
	'/api/%2e/auth/nonce',
	'/x/%2e%2e/api/auth/nonce',
	'/x/.%2E/api/auth/nonce',
	'/%61pi/auth/nonce',
	'/ap%69/auth/nonce',
	'/api/%61uth/nonce',
	'/api/auth/%6eonce',
	'/API/auth/nonce',
	'/api/AUTH/nonce',
	'/api;x/auth/nonce',
	'/api/auth/nonce;x',
	'/api/auth/nonce/',
	'/api/auth/nonce/.',
	'/api/auth/nonce?x=1',
	'/api/auth/nonce#x',
	'http://127.0.0.1/api/auth/nonce'
];
export const PULSE_SPELLINGS = [
	'/api/community-pulse',
	'/api\\community-pulse',
	'/x/..\\api/community-pulse',
	'/api%2Fcommunity-pulse',
	'//api/community-pulse',
	'/api/./community-pulse',
	'/api/x/../community-pulse',
	'/%61pi/community-pulse',
	'/api/community%2Dpulse',
	'/api/%63ommunity-pulse',
	'/API/community-pulse',
	'/api/community-pulse;x',
	'/api/community-pulse/.',
	'/api/community-pulse?x=1'
];
/** The walk-arounds found by attack: the portal reads these as the limited path, nginx did not. */
export const KNOWN_WALKAROUNDS = [
	'/api\\auth/nonce',
	'/api\\auth\\nonce',
	'/x/..\\api/auth/nonce',
	'/api\\community-pulse'
];
