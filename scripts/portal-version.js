// @ts-check
// The portal's version as a backup's header and a build name it: package.json's version and the git
// commit of the working folder (docs/operating.md, "Restore, and restore drills": how to find the code).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** `0.1.0 (commit 1a2b3c4d5e6f)`, `… with local changes` when tracked files differ from it; the version alone outside git. */
export function portalVersion(root = process.cwd()) {
	/** @type {unknown} */
	const json = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	const pkg = /** @type {{ version: string }} */ (json);
	/** @param {string[]} args */
	const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
	const head = git(['rev-parse', 'HEAD']);
	if (head.status !== 0) return pkg.version;
	// --no-optional-locks: a status that takes no index.lock, so that a git command run meanwhile never fails for it.
	const changed = git(['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no']).stdout.trim() !== '';
	return `${pkg.version} (commit ${head.stdout.trim().slice(0, 12)}${changed ? ', with local changes' : ''})`;
}
