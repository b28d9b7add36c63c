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

const cache = new Map<string, { contracts: Record<string, CompiledContract> }>();

/** The committed artifact of a fixture (e.g. `Eligibility.sol`), read once per process. */
export function readArtifact(file: string): { contracts: Record<string, CompiledContract> } {
	let artifact = cache.get(file);
	if (!artifact) {
		artifact = JSON.parse(readFileSync(artifactPath(file), 'utf8')) as { contracts: Record<string, CompiledContract> };
		cache.set(file, artifact);
	}
	return artifact;
}
