import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The repository stands alone (docs/README.md): a fresh machine has only the repository, so no
// tracked file may read a path outside it.
const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const parent = path.dirname(root);
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
	.split('\0')
	.filter((f) => f && !f.startsWith('tests/fixtures/') && f !== 'package-lock.json' && !f.startsWith('drizzle/meta/'))
	.filter((f) => existsSync(path.join(root, f)));
const textOf = (file: string) => {
	const buffer = readFileSync(path.join(root, file));
	return buffer.includes(0) ? null : buffer.toString('utf8');
};

// Where the machine keeps its own programs and scratch space: reading those is not reading another project.
const SYSTEM = /^\/(usr|etc|dev|proc|sys|tmp|bin|sbin|lib|lib64|var|run|opt)(\/|$)/;
const QUOTED = /(['"`])((?:\.\.\/|\/)[^'"`\s$]*)\1/g;

/**
 * Quoted paths in `text` that point outside the repository when read from `file`; `around` is the
 * folder the checkout sits in (a clone under /tmp sits in scratch space, not beside a project).
 */
export function pathsOutside(file: string, text: string, around = parent): string[] {
	const found: string[] = [];
	if (!SYSTEM.test(around) && around !== '/' && text.includes(around + '/')) found.push(around + '/');
	// The steering folder beside the checkout, spelled in two parts so this file does not name it itself.
	const shared = '..' + '/shared';
	if (text.includes(shared)) found.push(shared);
	for (const [, , literal] of text.matchAll(QUOTED)) {
		if (!literal) continue;
		if (literal.startsWith('../')) {
			const target = path.resolve(root, path.dirname(file), literal);
			if (path.relative(root, target).startsWith('..')) found.push(literal);
		} else if (
			// '//host/…' is a protocol-relative URL, not a file.
			!literal.startsWith('//') &&
			!SYSTEM.test(literal) &&
			literal.length > 1 &&
			// '/./' and the like name the file system's root: a path spelling (the fuzz suite's), not a file read.
			path.resolve(literal) !== '/' &&
			existsSync(literal) &&
			!literal.startsWith(root)
		) {
			found.push(literal);
		}
	}
	return found;
}

describe('the repository stands alone', () => {
	it('finds an outside path when one is written (the check itself works)', () => {
		const around = '/srv/projects';
		expect(pathsOutside('tests/x.test.ts', `readFileSync('${around}/shared/siwe-vectors/a.json')`, around)).not.toEqual(
			[]
		);
		expect(pathsOutside('tests/integration/x.test.ts', "import a from '../../.." + "/shared/a.json'")).not.toEqual([]);
		expect(pathsOutside('tests/integration/x.test.ts', `import a from '../helpers/db'`)).toEqual([]);
	});

	it('no tracked file reads a path outside the repository', () => {
		const offenders: string[] = [];
		for (const file of tracked) {
			const text = textOf(file);
			if (text === null || file === 'tests/integration/repository.test.ts') continue;
			for (const p of pathsOutside(file, text)) offenders.push(`${file}: ${p}`);
		}
		expect(offenders).toEqual([]);
	});
});
