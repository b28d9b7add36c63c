import { encodeFunctionData, erc20Abi, getAddress, type AbiFunction, type AbiParameter } from 'viem';
import { REQUIRED_CHAIN_ID } from '$lib/chain/chain';
import type { Config } from '../platform/config';
import type { Step, WaitingApplication } from './steps';

/**
 * A Safe Transaction Builder batch file (Safe{Wallet} → Apps → Transaction Builder → drag and drop):
 * the builder re-encodes each call from `contractMethod` and `contractInputsValues`, and shows them
 * to every signer before they sign.
 */
export interface SafeBatchFile {
	version: '1.0';
	chainId: string;
	createdAt: number;
	meta: {
		name: string;
		description: string;
		txBuilderVersion: string;
		createdFromSafeAddress: string;
		createdFromOwnerAddress: string;
	};
	transactions: SafeBatchTransaction[];
}

export interface SafeBatchTransaction {
	to: `0x${string}`;
	value: '0';
	data: `0x${string}`;
	contractMethod: { name: string; payable: false; inputs: { name: string; type: string; internalType: string }[] };
	contractInputsValues: Record<string, string>;
}

/** The builder version whose file format this is. */
const TX_BUILDER_VERSION = '1.16.5';

/** The builder keys values by argument name: an unnamed argument gets one. */
function namedInputs(fn: AbiFunction, fallback: string[]) {
	return fn.inputs.map((input: AbiParameter, i) => ({
		name: input.name || fallback[i] || `arg${i}`,
		type: input.type,
		internalType: input.type
	}));
}

function transaction(to: string, fn: AbiFunction, args: readonly unknown[], names: string[]): SafeBatchTransaction {
	const inputs = namedInputs(fn, names);
	// The builder's own text for an array is "[a,b]"; a scalar is its decimal or checksummed text.
	const text = (value: unknown) => (Array.isArray(value) ? `[${value.join(',')}]` : String(value));
	return {
		to: getAddress(to),
		value: '0',
		data: encodeFunctionData({ abi: [fn], functionName: fn.name, args }),
		contractMethod: { name: fn.name, payable: false, inputs },
		contractInputsValues: Object.fromEntries(inputs.map((input, i) => [input.name, text(args[i])]))
	};
}

const transferAbi = erc20Abi.find((item) => item.type === 'function' && item.name === 'transfer') as AbiFunction;

/**
 * The batch for `step` and these applications (settings checked by missingSettings first): the
 * allowlist call with every address (an address[] function) or one call per address; one ERC-20
 * `transfer(applicant, TOKEN_GRANT_AMOUNT)` per applicant.
 */
export function safeBatch(config: Config, step: Step, waiting: WaitingApplication[], now = Date.now()): SafeBatchFile {
	const f = config.fulfilment;
	const safe = getAddress(f.treasuryAddress!);
	const recipients = waiting.map((w) => getAddress(w.applicantAddress));
	let transactions: SafeBatchTransaction[];
	let description: string;
	if (step === 'allowlist') {
		const { abi, takesArray } = f.allowlistFunction!;
		transactions = takesArray
			? [transaction(f.allowlistContract!, abi, [recipients], ['accounts'])]
			: recipients.map((r) => transaction(f.allowlistContract!, abi, [r], ['account']));
		description = `Adds ${recipients.length} approved applicant${recipients.length === 1 ? '' : 's'} to the allowlist with ${abi.name}.`;
	} else {
		const amount = f.tokenGrantAmount!;
		transactions = recipients.map((r) => transaction(config.token!.address, transferAbi, [r, amount], ['to', 'value']));
		description = `Sends ${amount} base units of ${config.token!.symbol} to each of ${recipients.length} approved applicant${recipients.length === 1 ? '' : 's'}.`;
	}
	return {
		version: '1.0',
		chainId: String(REQUIRED_CHAIN_ID),
		createdAt: now,
		meta: {
			name:
				step === 'allowlist' ? 'Allowlist approved applicants' : `Send ${config.token!.symbol} to approved applicants`,
			description,
			txBuilderVersion: TX_BUILDER_VERSION,
			createdFromSafeAddress: safe,
			createdFromOwnerAddress: ''
		},
		transactions
	};
}
