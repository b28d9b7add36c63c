// The test chains' compiled contracts, read from tests/fixtures/contracts/<name>.json (made by
// `node scripts/test-contracts.js`; tests/unit/contract-artifacts.test.ts keeps them current).
import { readFileSync } from 'node:fs';
import type { Abi, Hex } from 'viem';
import { artifactPath } from '../../scripts/test-contracts.js';

export interface CompiledContract {
	abi: Abi;
	bytecode: Hex;
	runtime: Hex;
}

const cache = new Map<string, Record<string, CompiledContract>>();

/** The contracts of a fixture's committed artifact (e.g. `Eligibility.sol`), read once per process. */
export function readContracts<Name extends string>(file: string): Record<Name, CompiledContract> {
	let contracts = cache.get(file);
	if (!contracts) {
		contracts = (
			JSON.parse(readFileSync(artifactPath(file), 'utf8')) as { contracts: Record<string, CompiledContract> }
		).contracts;
		cache.set(file, contracts);
	}
	return contracts;
}
