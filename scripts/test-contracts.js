// @ts-check
// The test chains' contracts (tests/fixtures/contracts/*.sol), compiled once and committed as
// tests/fixtures/contracts/<name>.json (ABI, creation and runtime bytecode), so that no test process
// loads solc (a 9 MB WebAssembly compiler) and compiles OpenZeppelin on every run.
//
//   node scripts/test-contracts.js           regenerates the JSON files (after editing a .sol file,
//                                            upgrading solc or @openzeppelin/contracts)
//   node scripts/test-contracts.js --check   exits 1 when a committed file no longer matches its sources
//
// Each JSON file records the compiler version, the settings and a SHA-256 of every source file solc
// read (the fixture and each OpenZeppelin file it imports); tests/unit/contract-artifacts.test.ts fails
// when any of them differs from what is on disk, so the artifacts cannot silently go stale.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = path.join(ROOT, 'tests', 'fixtures', 'contracts');

/**
 * What each fixture is compiled with: its settings as the tests deployed them before the artifacts
 * were committed (Eligibility: ganache 7 runs Shanghai, so no MCOPY/TSTORE from a newer EVM target).
 * @type {Record<string, { contracts: string[], settings: Record<string, unknown> }>}
 */
export const FIXTURES = {
	'Eligibility.sol': {
		contracts: ['CommunityCoin', 'MembershipNft', 'Badges', 'Multicall3Subset'],
		settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'shanghai' }
	},
	'Fulfilment.sol': { contracts: ['CommunityToken', 'Allowlist'], settings: {} },
	'Ens.sol': { contracts: ['TestUniversalResolver'], settings: { evmVersion: 'shanghai' } }
};

const OUTPUT_SELECTION = { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } };

/** @param {string} file a fixture's name, e.g. Eligibility.sol @returns {string} its artifact's path */
export const artifactPath = (file) => path.join(CONTRACTS_DIR, file.replace(/\.sol$/, '.json'));

/** Where solc's import of `source` is read from: a fixture beside the others, or a package in node_modules. */
function sourcePath(/** @type {string} */ source) {
	return source.startsWith('@') ? path.join(ROOT, 'node_modules', source) : path.join(CONTRACTS_DIR, source);
}

/** @param {string} text @returns {unknown} */
const parseJson = (text) => JSON.parse(text);

/** @param {string} text */
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** The version of the installed solc package, as solc.version() reports it (without loading the compiler). */
export function installedSolcVersion() {
	const pkg = /** @type {{ version: string }} */ (
		parseJson(readFileSync(path.join(ROOT, 'node_modules', 'solc', 'package.json'), 'utf8'))
	);
	return pkg.version;
}

/**
 * @typedef {{ abi: unknown[], bytecode: `0x${string}`, runtime: `0x${string}` }} CompiledContract
 * @typedef {{ solc: string, settings: Record<string, unknown>, sources: Record<string, string>,
 *   contracts: Record<string, CompiledContract> }} Artifact
 */

/**
 * What a committed artifact says it was made from, against the files as they are now: a list of
 * differences (empty when the artifact is current).
 * @param {string} file
 * @returns {string[]}
 */
export function staleness(file) {
	const fixture = FIXTURES[file];
	if (!fixture) return [`${file} is not listed in scripts/test-contracts.js`];
	const out = artifactPath(file);
	if (!existsSync(out)) return [`${path.relative(ROOT, out)} is missing`];
	const artifact = /** @type {Artifact} */ (parseJson(readFileSync(out, 'utf8')));
	const problems = [];
	if (artifact.solc !== installedSolcVersion())
		problems.push(`compiled with solc ${artifact.solc}, installed is ${installedSolcVersion()}`);
	if (JSON.stringify(artifact.settings) !== JSON.stringify(fixture.settings)) problems.push('the settings changed');
	if (!(file in artifact.sources)) problems.push(`${file} is not among its sources`);
	for (const [source, hash] of Object.entries(artifact.sources)) {
		const at = sourcePath(source);
		if (!existsSync(at)) problems.push(`${source} is gone`);
		else if (sha256(readFileSync(at, 'utf8')) !== hash) problems.push(`${source} changed`);
	}
	for (const name of fixture.contracts) if (!artifact.contracts[name]) problems.push(`${name} is missing`);
	return problems.map((problem) => `${path.relative(ROOT, out)}: ${problem}`);
}

/**
 * Compiles one fixture with the installed solc and returns its artifact.
 * @param {string} file
 * @returns {Promise<Artifact>}
 */
export async function compile(file) {
	const fixture = FIXTURES[file];
	if (!fixture) throw new Error(`${file} is not listed in FIXTURES`);
	const solc = /** @type {{ compile: (input: string, options: object) => string, version: () => string }} */ (
		(await import('solc')).default
	);
	/** @type {Record<string, string>} */
	const read = { [file]: readFileSync(sourcePath(file), 'utf8') };
	const findImports = (/** @type {string} */ source) => {
		const at = sourcePath(source);
		if (!source.startsWith('@openzeppelin/') || !existsSync(at)) return { error: `not found: ${source}` };
		read[source] = readFileSync(at, 'utf8');
		return { contents: read[source] };
	};
	const input = {
		language: 'Solidity',
		sources: { [file]: { content: read[file] } },
		settings: { ...fixture.settings, outputSelection: OUTPUT_SELECTION }
	};
	/** @typedef {{ abi: unknown[], evm: { bytecode: { object: string }, deployedBytecode: { object: string } } }} SolcContract */
	const output =
		/** @type {{ errors?: { severity: string, formattedMessage: string }[], contracts: Record<string, Record<string, SolcContract>> }} */ (
			parseJson(solc.compile(JSON.stringify(input), { import: findImports }))
		);
	const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
	if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
	/** @type {Record<string, CompiledContract>} */
	const contracts = {};
	for (const name of fixture.contracts) {
		const c = output.contracts[file]?.[name];
		if (!c) throw new Error(`${name} was not compiled from ${file}`);
		contracts[name] = {
			abi: c.abi,
			bytecode: `0x${c.evm.bytecode.object}`,
			runtime: `0x${c.evm.deployedBytecode.object}`
		};
	}
	const version = solc.version().replace(/\+commit.*$/, '');
	const sources = Object.fromEntries(
		Object.keys(read)
			.sort()
			.map((source) => [source, sha256(read[source] ?? '')])
	);
	return { solc: version, settings: fixture.settings, sources, contracts };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	if (process.argv.includes('--check')) {
		const problems = Object.keys(FIXTURES).flatMap(staleness);
		for (const problem of problems) console.error(problem);
		if (problems.length) {
			console.error('run: node scripts/test-contracts.js');
			process.exit(1);
		}
		console.log('The committed contract artifacts match their sources.');
	} else {
		for (const file of Object.keys(FIXTURES)) {
			const artifact = await compile(file);
			writeFileSync(artifactPath(file), JSON.stringify(artifact, null, '\t') + '\n');
			console.log(`${path.relative(ROOT, artifactPath(file))}: ${Object.keys(artifact.contracts).join(', ')}`);
		}
	}
}
