// @ts-check
// What the request logging and metrics (src/lib/server/platform/observability.ts) cost the session
// check: GET /api/auth/me with a valid cookie on this build against the same request on a build of
// the same commit with `observeRequests` taken out of the handle sequence (built here in a temporary
// git worktree; BENCH_BASELINE_REF=<ref> builds that ref as it is instead), in alternating rounds; the
// log lines go to the bench's pipe as they would to a log collector.
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { alternate, httpClient, loop, PORTAL_ARGS, signIn, startPortal } from '../harness.js';

// A well-known development key; it holds nothing.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const CONNECTIONS = 32;

/**
 * Builds `ref` in a temporary worktree (sharing this node_modules); returns its folder. With
 * `withoutObservability`, its hooks leave out the request logging and metrics handle first.
 * @param {string} ref
 * @param {boolean} withoutObservability
 */
function buildBaseline(ref, withoutObservability) {
	const dir = mkdtempSync(path.join(tmpdir(), 'portal-baseline-'));
	execSync(`git worktree add --detach ${dir} ${ref}`, { stdio: 'ignore' });
	symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
	if (withoutObservability) {
		const hooks = path.join(dir, 'src/hooks.server.ts');
		const source = readFileSync(hooks, 'utf8');
		const patched = source.replace(/((?:sequence|chain)\(\s*)observeRequests,\s*/, '$1');
		if (patched === source) throw new Error('observeRequests is no longer the first handle in src/hooks.server.ts');
		writeFileSync(hooks, patched);
	}
	execSync('npx vite build', { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
	return dir;
}

/** @type {import('../harness.js').Scenario} */
export default async function observability({ seconds, rounds }) {
	const given = process.env.BENCH_BASELINE_REF;
	const ref = given ?? execSync('git rev-parse HEAD').toString().trim();
	const dir = buildBaseline(ref, !given);
	const baselineName = given ? ref.slice(0, 7) : `${ref.slice(0, 7)} without observeRequests`;
	try {
		if (!existsSync(path.join(dir, 'build/index.js'))) throw new Error('the baseline did not build');
		// PGlite in memory for both: the session check never reads the database.
		const current = await startPortal({});
		const before = await startPortal({}, { args: [...PORTAL_ARGS.slice(0, -1), path.join(dir, 'build/index.js')] });
		const clients = { current: httpClient(current.url, CONNECTIONS), before: httpClient(before.url, CONNECTIONS) };
		try {
			const cookies = { current: await signIn(current.url, account), before: await signIn(before.url, account) };
			const options = { seconds, concurrency: CONNECTIONS };
			/** @param {'current' | 'before'} which */
			const run = (which) => () => loop(() => clients[which].get('/api/auth/me', { cookie: cookies[which] }), options);
			await run('before')();
			await run('current')(); // warm-up
			const m = await alternate(rounds, { before: run('before'), current: run('current') });
			return [
				{
					name: `GET /api/auth/me, valid cookie, ${CONNECTIONS} conns, with request logs + metrics (vs the same without them: ${baselineName})`,
					...m.current,
					rss: current.peakRssMiB(),
					baseline: m.before,
					target: 'ratio >= 0.95'
				}
			];
		} finally {
			clients.current.close();
			clients.before.close();
			await current.stop();
			await before.stop();
		}
	} finally {
		execSync(`git worktree remove --force ${dir}`, { stdio: 'ignore' });
		rmSync(dir, { recursive: true, force: true });
	}
}
