// @ts-check
// Cached GET /api/community-pulse against an anonymous GET /api/auth/me (the cheapest JSON answer) of
// the same built server, with a fake GitHub on loopback that counts the upstream requests made during the run.
import { createServer } from 'node:http';
import { alternate, httpClient, loop, startPortal } from '../harness.js';

const CONNECTIONS = 32;

/** A fake GitHub: 30 open issues (3 of them pull requests), counting requests. */
async function startFakeGitHub() {
	const issues = Array.from({ length: 30 }, (_, i) => ({
		number: i + 1,
		title: `Issue ${i + 1}: something worth discussing in the community`,
		html_url: `https://github.com/acme/portal/issues/${i + 1}`,
		user: { login: `member${i}` },
		labels: [{ name: 'discussion', color: '5319e7' }],
		comments: i,
		created_at: '2026-01-01T00:00:00Z',
		updated_at: '2026-11-20T00:00:00Z',
		body: 'x'.repeat(500),
		...(i % 10 === 9 ? { pull_request: { url: 'https://api.github.com/repos/acme/portal/pulls/1' } } : {})
	}));
	const body = JSON.stringify(issues);
	let count = 0;
	const server = createServer((_req, res) => {
		count++;
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(body);
	});
	await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
	const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
	return { url: `http://127.0.0.1:${port}`, count: () => count, close: () => server.close() };
}

/** @type {import('../harness.js').Scenario} */
export default async function pulse({ databaseUrl, engine, seconds, rounds }) {
	const github = await startFakeGitHub();
	const portal = await startPortal({
		COMMUNITY_PULSE_REPO: 'acme/portal',
		GITHUB_API_URL: github.url,
		...(engine === 'postgres' ? { DATABASE_URL: databaseUrl } : {})
	});
	const client = httpClient(portal.url, CONNECTIONS);
	try {
		const options = { seconds, concurrency: CONNECTIONS };
		// Warm both routes and fill the feed's cache before measuring.
		await loop(() => client.get('/api/auth/me'), { ...options, seconds: 2 });
		await loop(() => client.get('/api/community-pulse'), { ...options, seconds: 2 });
		const before = github.count();
		const m = await alternate(rounds, {
			anonymous: () => loop(() => client.get('/api/auth/me'), options),
			pulse: () => loop(() => client.get('/api/community-pulse'), options)
		});
		const during = github.count() - before;
		return [
			{
				name: `GET /api/community-pulse cached, ${CONNECTIONS} conns, upstream requests during run: ${during} (total ${github.count()}) (vs anonymous GET /api/auth/me)`,
				...m.pulse,
				rss: portal.peakRssMiB(),
				baseline: m.anonymous,
				target: 'ratio ~1, 0 upstream'
			}
		];
	} finally {
		client.close();
		await portal.stop();
		github.close();
	}
}
