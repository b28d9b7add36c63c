// Every form action reads its body through readForm (forms.ts): a body that is not a readable form
// is then the documented 400, never a 500 (docs/pages-and-forms.md "Status codes"). This reads the
// route files themselves, so a new action that calls request.formData() fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROUTES = join(process.cwd(), 'src/routes');

// Exceptions, each with its reason (the test below fails once one is no longer needed): none.
const NOT_YET: Record<string, string> = {};

function actionFiles(dir = ROUTES): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return actionFiles(path);
		return entry.name === '+page.server.ts' && /export const actions\b/.test(readFileSync(path, 'utf8')) ? [path] : [];
	});
}

describe('form actions read their body through readForm', () => {
	const files = actionFiles().map((path) => [relative(ROUTES, path), readFileSync(path, 'utf8')] as const);

	it('finds the route files with actions', () => {
		expect(files.map(([name]) => name)).toEqual(
			expect.arrayContaining(['admin/+page.server.ts', 'apply/+page.server.ts'])
		);
	});

	it.each(files.filter(([name]) => !(name in NOT_YET)))('%s never reads request.formData() itself', (_, source) => {
		expect(source).not.toMatch(/\.formData\s*\(/);
		expect(source).not.toMatch(/request\.(text|json|arrayBuffer|blob)\s*\(/);
		// An action that never touches the request (the one-click unsubscribe reads only its URL) reads no body.
		if (/\brequest\b/.test(source)) expect(source).toMatch(/\breadForm\(request\)/);
	});

	it.each(Object.entries(NOT_YET))(
		'%s is still an exception (%s): drop it from NOT_YET once it uses readForm',
		(name) => {
			expect(readFileSync(join(ROUTES, name), 'utf8')).not.toMatch(/\breadForm\(request\)/);
		}
	);
});
