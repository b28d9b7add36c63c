// No page shows a person words outside a message (docs/decisions/0043-translations-by-url-prefix.md): every
// text node and every attribute a person reads or hears in a .svelte file is a message call, or is on the
// list below with its reason.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'svelte/compiler';
import { describe, expect, it } from 'vitest';

/** Attributes a person reads or a screen reader speaks. */
const READ_ATTRIBUTES = new Set([
	'aria-label',
	'aria-description',
	'aria-roledescription',
	'aria-valuetext',
	'title',
	'placeholder',
	'alt',
	'label'
]);

/** Text that is the same in every language: names, symbols and codes. */
const SAME_IN_EVERY_LANGUAGE =
	/^(?:MetaMask|WalletConnect|Safe\{Wallet\}|Safe|Polygon|GitHub|CSV|JSON|POL|0x|ETH|px|HTTP)$/;

/** Files or texts shown as they are, with the reason. */
const EXCEPTIONS: Record<string, string> = {};

function svelteFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return full.endsWith(path.join('lib', 'paraglide')) ? [] : svelteFiles(full);
		return entry.name.endsWith('.svelte') ? [full] : [];
	});
}

type Node = { type?: string; [key: string]: unknown };

/** The words of `text` (entities and symbols aside) that are not names. */
const words = (text: string) =>
	text
		.replace(/&[#\w]+;/g, ' ')
		.match(/\p{L}[\p{L}'’.-]*/gu)
		?.filter((word) => !SAME_IN_EVERY_LANGUAGE.test(word) && word.length > 1) ?? [];

/** Every hard-coded text a person would read in a component's markup. */
function hardCoded(file: string): string[] {
	const ast = parse(readFileSync(file, 'utf8'), { modern: true });
	const found: string[] = [];
	const visit = (node: unknown, inAttribute: string | null): void => {
		if (Array.isArray(node)) return node.forEach((child) => visit(child, inAttribute));
		if (!node || typeof node !== 'object') return;
		const n = node as Node;
		// JavaScript inside `{...}`: its strings are checked where they are written (message calls).
		if (n.type === 'ExpressionTag' || n.type === 'Script' || n.type === 'StyleSheet') return;
		if (n.type === 'Text' && typeof n.data === 'string') {
			if (words(n.data).length > 0)
				found.push(`${inAttribute ? `${inAttribute}="` : ''}${n.data.trim()}${inAttribute ? '"' : ''}`);
			return;
		}
		// Code, keys and a program's output read the same in every language (`<code>WEBHOOK_URLS</code>`).
		if (n.type === 'RegularElement' && ['code', 'kbd', 'samp'].includes(n.name as string)) return;
		if (n.type === 'Attribute') {
			if (READ_ATTRIBUTES.has(n.name as string)) visit(n.value, n.name as string);
			return;
		}
		for (const [key, value] of Object.entries(n)) {
			if (key === 'expression' || key === 'metadata' || key === 'key' || key === 'context') continue;
			visit(value, inAttribute);
		}
	};
	visit(ast.fragment, null);
	return found;
}

describe('no hard-coded text in the pages', () => {
	const files = svelteFiles('src');

	it('finds the components', () => {
		expect(files.length).toBeGreaterThan(50);
	});

	it('a hard-coded text or attribute is found (the check can fail)', () => {
		const sample = path.join('src', 'lib', 'components', 'layout', 'LocaleSwitcher.svelte');
		expect(hardCoded(sample)).toEqual([]);
		expect(words('Sign in')).toEqual(['Sign', 'in']);
		expect(words('MetaMask →')).toEqual([]);
	});

	it.each(files.map((file) => [path.relative('src', file)]))('%s', (file) => {
		const found = hardCoded(path.join('src', file)).filter((text) => EXCEPTIONS[`${file}: ${text}`] === undefined);
		expect(found).toEqual([]);
	});
});
