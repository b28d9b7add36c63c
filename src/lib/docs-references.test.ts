// Every file path, and every `path:symbol`, that docs/ and README.md name exists: a rename that
// forgets the docs fails here (the docs are how a newcomer finds a rule's one function).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const ROOTS = '(?:src|tests|deploy|bench|drizzle|scripts|docs|static)';
// `src/lib/x.ts`, `src/lib/x.ts:name`, `src/lib/x.ts:actions.bulk` inside backticks; a pattern
// (`tests/http/….test.ts`, `{a,b}`) names no one file and is left out.
const REFERENCE = new RegExp('`(' + ROOTS + '/[^`\\s:*<>{}…]+?)(?::([A-Za-z_$][\\w$.]*))?`', 'g');

function markdown(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? markdown(path) : name.endsWith('.md') ? [path] : [];
	});
}

// The docs, and every folder's README under src/ (what a module holds and may import).
const files = ['README.md', ...[join(ROOT, 'docs'), join(ROOT, 'src')].flatMap(markdown)]
	.map((p) => (p.startsWith(ROOT) ? p.slice(ROOT.length + 1) : p))
	.filter((p) => !p.startsWith('src/lib/paraglide/'));
const references = files.flatMap((file) =>
	[...readFileSync(join(ROOT, file), 'utf8').matchAll(REFERENCE)].map((m) => ({ file, path: m[1]!, symbol: m[2] }))
);

describe('docs name only what exists', () => {
	it('finds references to check', () => {
		expect(references.length).toBeGreaterThan(50);
	});

	it.each(references.map((r) => [`${r.file}: ${r.path}${r.symbol ? `:${r.symbol}` : ''}`, r] as const))(
		'%s',
		(_, { path, symbol }) => {
			const target = join(ROOT, path.replace(/\/$/, ''));
			expect(existsSync(target), `${path} does not exist`).toBe(true);
			if (!symbol || statSync(target).isDirectory()) return;
			// The first part of `actions.bulk` or `Foo.bar` is what the file declares.
			const name = symbol.split('.')[0]!;
			const declared = new RegExp(
				`\\b(?:function\\*?|const|let|class|interface|type|enum)\\s+${name.replace(/\$/g, '\\$')}\\b`
			);
			expect(readFileSync(target, 'utf8'), `${path} declares no ${name}`).toMatch(declared);
		}
	);
});

/** Source files under the folders a newcomer reads, with the docs they cite in comments. */
function sources(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return name === 'paraglide' || name === 'node_modules' ? [] : sources(path);
		return /\.(ts|js|svelte)$/.test(name) ? [path] : [];
	});
}

const code = ['src', 'tests', 'scripts', 'deploy'].flatMap((d) => sources(join(ROOT, d)));

describe('code comments cite documents in this repository', () => {
	it('never the planning documents outside it (DECISIONS, ARCHITECTURE)', () => {
		const outside = code.filter((path) =>
			/\b(?:DECISIONS|ARCHITECTURE)\b(?!_)\s*(?:\*|\/\/)?\s*["“:;]/.test(readFileSync(path, 'utf8'))
		);
		expect(outside.map((p) => p.slice(ROOT.length + 1))).toEqual([]);
	});

	it('only docs that exist', () => {
		const missing = code.flatMap((path) =>
			[...readFileSync(path, 'utf8').matchAll(/\bdocs\/[\w./-]+?\.md\b/g)]
				.map((m) => m[0])
				.filter((doc) => !existsSync(join(ROOT, doc)))
				.map((doc) => `${path.slice(ROOT.length + 1)}: ${doc}`)
		);
		expect(missing).toEqual([]);
	});
});
