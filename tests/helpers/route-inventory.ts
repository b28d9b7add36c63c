// The routes and form actions that exist, read from src/routes, so that a suite listing them can tell
// when one is missing from its list.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const ROUTE_FILES = ['+page.svelte', '+page.ts', '+page.server.ts', '+server.ts'];

/** The names an `export const actions = { … }` object declares (keys at its first indentation level). */
export function actionNames(source: string): string[] {
	const block = /export const actions\b[^=]*=\s*\{([\s\S]*?)\n\}/.exec(source)?.[1];
	if (!block) return [];
	return [...block.matchAll(/^\t(?:async\s+)?['"]?([A-Za-z_$][\w$]*)['"]?\s*[:(,]/gm)].map((m) => m[1]!);
}

/** Every route id under `root` (`/admin/applications/[id]`), and `<id>?/<action>` for each form action. */
export function routeInventory(root = 'src/routes'): string[] {
	const found: string[] = [];
	const walk = (dir: string, id: string) => {
		const entries = readdirSync(dir, { withFileTypes: true });
		const files = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
		if (ROUTE_FILES.some((f) => files.has(f))) found.push(id || '/');
		if (files.has('+page.server.ts'))
			for (const name of actionNames(readFileSync(path.join(dir, '+page.server.ts'), 'utf8')))
				found.push(`${id || '/'}?/${name}`);
		for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name), `${id}/${e.name}`);
	};
	walk(root, '');
	return found.sort();
}
