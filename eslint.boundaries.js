// What each folder may import, as the READMEs say (docs/architecture.md "Where things are"): one table,
// turned into `no-restricted-imports` rules so `npm run lint` fails on an import that runs back up.
// A server folder may import only the server folders listed for it (`auth:types`: type imports only;
// `chain/polygon`: that one module). Tests may import anything.

/**
 * src/lib/server/<folder> → the server folders it may import.
 * @type {Record<string, string[]>}
 */
export const SERVER_MAY_IMPORT = {
	db: [],
	platform: ['db'],
	auth: ['platform', 'db', 'chain', 'reviews/roster'],
	branding: ['platform', 'db', 'auth:types', 'files/detect'],
	chain: ['platform', 'db', 'auth', 'applications', 'webhooks'],
	applications: [
		'platform',
		'db',
		'auth',
		'chain',
		'forms',
		'webhooks',
		'notifications',
		'eligibility',
		'reviews',
		'programs',
		'files',
		'branding'
	],
	checkins: ['platform', 'db', 'auth:types', 'webhooks'],
	eligibility: ['platform', 'db', 'auth:types', 'forms', 'chain/polygon'],
	files: ['platform', 'db', 'auth:types'],
	forms: ['platform', 'db', 'auth:types'],
	i18n: ['platform', 'auth'],
	insights: ['platform', 'db', 'outbox'],
	notifications: ['platform', 'db', 'outbox', 'branding'],
	outbox: ['platform', 'db'],
	programs: ['platform', 'db', 'outbox', 'notifications'],
	pulse: ['platform'],
	reviews: ['platform', 'db', 'auth:types', 'forms', 'webhooks'],
	webhooks: ['platform', 'db', 'auth:types', 'outbox']
};

/**
 * Files that may import more than their folder, each with its reason. `platform/runtime.ts` is the
 * composition root: it starts the process and hands each domain its configuration, so it alone imports
 * them; `platform/deliveries.ts` is the outbox's part of it, the one assembly of its channels (webhooks,
 * push, e-mail) from the configuration.
 */
export const BOUNDARY_EXCEPTIONS = ['src/lib/server/platform/runtime.ts', 'src/lib/server/platform/deliveries.ts'];

const TESTS = ['**/*.test.ts', '**/test-doubles.ts'];

/**
 * Both spellings of an import of a server folder (or of one module in it) from inside another.
 * @param {string} target
 */
const spellings = (target) => [`../${target}`, `../${target}/*`, `$lib/server/${target}`, `$lib/server/${target}/*`];

/**
 * @param {string} folder
 * @returns {import('eslint').Linter.Config}
 */
function serverRule(folder) {
	const may = SERVER_MAY_IMPORT[folder] ?? [];
	/** @type {{ group: string[]; message: string; allowTypeImports?: boolean }[]} */
	const patterns = [];
	for (const other of Object.keys(SERVER_MAY_IMPORT)) {
		if (other === folder || may.includes(other)) continue;
		const message = `src/lib/server/${folder}/ may not import ${other}/ (its README, eslint.boundaries.js).`;
		const onlyTypes = may.includes(`${other}:types`);
		const oneModule = may.find((m) => m.startsWith(`${other}/`));
		// A folder excluded as a whole cannot have one file let back in (gitignore's rule): name its files.
		const group = oneModule
			? [`../${other}/*`, `!../${oneModule}`, `$lib/server/${other}/*`, `!$lib/server/${oneModule}`]
			: spellings(other);
		patterns.push({ group, message, ...(onlyTypes ? { allowTypeImports: true } : {}) });
	}
	return {
		files: [`src/lib/server/${folder}/**/*.ts`],
		ignores: [...TESTS, ...BOUNDARY_EXCEPTIONS],
		rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] }
	};
}

/**
 * What the browser may load never imports the server's code.
 * @type {import('eslint').Linter.Config}
 */
const shared = {
	files: ['src/lib/**/*.ts', 'src/lib/**/*.svelte'],
	ignores: ['src/lib/server/**', 'src/lib/paraglide/**', ...TESTS],
	rules: {
		'@typescript-eslint/no-restricted-imports': [
			'error',
			{
				patterns: [
					{
						group: ['$lib/server', '$lib/server/*', '**/server/*'],
						message: 'Code shared with the browser may not import src/lib/server/ (src/lib/*/README.md).',
						allowTypeImports: true
					}
				]
			}
		]
	}
};

/** @type {import('eslint').Linter.Config[]} */
export const boundaries = [...Object.keys(SERVER_MAY_IMPORT).map(serverRule), shared];
