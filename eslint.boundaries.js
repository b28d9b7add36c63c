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
 * Files that may import more than their folder, each with the server folders (or modules) it may import.
 * `platform/runtime.ts` is the composition root: it builds what the routes pass down (the outbox targets,
 * the chain endpoints, the roster) from platform's own types, and imports no domain but the session codec
 * it creates (`auth/session.ts`); `platform/deliveries.ts` is the outbox's part of it, the one assembly of
 * its channels (webhooks, push, e-mail) from the configuration, so it imports those domains.
 * @type {Record<string, string[] | 'any'>}
 */
export const FILE_MAY_IMPORT = {
	'src/lib/server/platform/runtime.ts': ['db', 'auth/session'],
	'src/lib/server/platform/deliveries.ts': 'any'
};
export const BOUNDARY_EXCEPTIONS = Object.keys(FILE_MAY_IMPORT);

const TESTS = ['**/*.test.ts', '**/test-doubles.ts'];

/**
 * Both spellings of an import of a server folder (or of one module in it) from inside another.
 * @param {string} target
 */
const spellings = (target) => [`../${target}`, `../${target}/*`, `$lib/server/${target}`, `$lib/server/${target}/*`];

/**
 * @param {string} folder
 * @param {string[]} may
 * @param {string[]} files
 * @param {string[]} ignores
 * @param {string[]} folders the server folders refused unless `may` names them
 * @param {string} who how a refusal names the importer
 * @returns {import('eslint').Linter.Config}
 */
function importRule(
	folder,
	may,
	files,
	ignores,
	folders = Object.keys(SERVER_MAY_IMPORT),
	who = `src/lib/server/${folder}/`
) {
	/** @type {{ group: string[]; message: string; allowTypeImports?: boolean }[]} */
	const patterns = [];
	for (const other of folders) {
		if (other === folder || may.includes(other)) continue;
		const message = `${who} may not import ${other}/ (its README, eslint.boundaries.js).`;
		const onlyTypes = may.includes(`${other}:types`);
		const oneModule = may.find((m) => m.startsWith(`${other}/`));
		// A folder excluded as a whole cannot have one file let back in (gitignore's rule): name its files.
		const group = oneModule
			? [`../${other}/*`, `!../${oneModule}`, `$lib/server/${other}/*`, `!$lib/server/${oneModule}`]
			: spellings(other);
		patterns.push({ group, message, ...(onlyTypes ? { allowTypeImports: true } : {}) });
	}
	return { files, ignores, rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] } };
}

/** @param {string} folder */
const serverRule = (folder) =>
	importRule(
		folder,
		SERVER_MAY_IMPORT[folder] ?? [],
		[`src/lib/server/${folder}/**/*.ts`],
		[...TESTS, ...BOUNDARY_EXCEPTIONS]
	);

/** The files of FILE_MAY_IMPORT that name what they may import, held to it (team/ too, which has no row above). */
const fileRules = Object.entries(FILE_MAY_IMPORT).flatMap(([file, may]) =>
	may === 'any'
		? []
		: [importRule(file.split('/')[3] ?? '', may, [file], [], [...Object.keys(SERVER_MAY_IMPORT), 'team'], file)]
);

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
export const boundaries = [...Object.keys(SERVER_MAY_IMPORT).map(serverRule), ...fileRules, shared];
