// Lint with type information everywhere (floating promises are the bug class this catches best).
//
// `npm run lint` sets SVELTE_ESLINT_PARSER_EXPERIMENTAL_TS_SYS_HOOK=1 (package.json): svelte-eslint-parser's
// opt-in hook hands TypeScript each .svelte file as the virtual TypeScript it lints, so the program already
// holds a component as linted instead of TypeScript updating it (and its type information) for each of the
// ~90 components. Same rules, files and findings; eslint about 263 CPU s -> 163 (bench/README.md, "CI time").
// Without the variable (a plain `npx eslint .`, or a release that drops the hook) lint is slower, not weaker.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';
import { boundaries } from './eslint.boundaries.js';

export default ts.config(
	{
		ignores: [
			'build/',
			'.builds/',
			'backups/',
			// Generated from messages/ by Paraglide (vite.config.ts, npm run i18n:compile).
			'src/lib/paraglide/',
			'.svelte-kit/',
			'.vercel/',
			'.data/',
			'test-results/',
			'playwright-report/',
			'bench/results/',
			// Another project, with its own packages (bench/peers/package.json): the peers bench.
			'bench/peers/',
			// Lighthouse, which needs Node 22, in a project of its own (bench/lighthouse/package.json).
			'bench/lighthouse/',
			'.test-builds/'
		]
	},
	js.configs.recommended,
	...ts.configs.recommendedTypeChecked,
	...svelte.configs.recommended,
	prettier,
	...svelte.configs.prettier,
	{
		languageOptions: {
			globals: { ...globals.browser, ...globals.node },
			parserOptions: {
				// SvelteKit's tsconfig leaves the service worker out (it runs with the WebWorker library).
				projectService: { allowDefaultProject: ['src/service-worker.ts'] },
				extraFileExtensions: ['.svelte'],
				tsconfigRootDir: import.meta.dirname
			}
		},
		rules: {
			'@typescript-eslint/no-floating-promises': 'error',
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }
			],
			// typescript itself reports undefined names, with the types eslint cannot see.
			'no-undef': 'off',
			// The app is served at the root (no paths.base) and its links are plain paths, query strings and external pages.
			'svelte/no-navigation-without-resolve': ['error', { ignoreLinks: true }]
		}
	},
	{
		files: ['**/*.svelte', '**/*.svelte.ts'],
		languageOptions: { parserOptions: { parser: ts.parser, svelteConfig } }
	},
	// Code the browser loads imports each message it calls from its own module: through Paraglide's `m` (its
	// index re-exports every message) every page's chunk would reach every message, in five locales
	// (docs/translations.md). The server's code keeps `m`.
	{
		files: ['src/**/*.ts', 'src/**/*.svelte'],
		ignores: [
			'src/lib/server/**',
			'src/**/*.server.ts',
			'src/**/+server.ts',
			'src/**/*.test.ts',
			'src/hooks.server.ts'
		],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: [
						{
							name: '$lib/paraglide/messages',
							message: "Import each message from '$lib/paraglide/messages/<key>.js' (docs/translations.md)."
						},
						{
							name: '$lib/paraglide/messages.js',
							message: "Import each message from '$lib/paraglide/messages/<key>.js' (docs/translations.md)."
						}
					]
				}
			]
		}
	},
	...boundaries
);
