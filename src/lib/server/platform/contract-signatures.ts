import { parseAbiItem, type AbiEvent, type AbiFunction } from 'viem';

/** The allowlist call: a function of one argument, an address or an address array (docs/fulfilment.md). */
export interface AllowlistFunction {
	abi: AbiFunction;
	/** True for `f(address[])`: one call for every address; false: one call per address. */
	takesArray: boolean;
}

// Longer than any honest signature; parsing a long hostile one is then bounded.
const MAX_SIGNATURE = 300;

/** A human-readable ABI item, with or without its `function` / `event` keyword; null when it does not parse. */
function parseItem(kind: 'function' | 'event', raw: string): AbiFunction | AbiEvent | null {
	if (raw.length > MAX_SIGNATURE || /[\0\r\n]/.test(raw)) return null;
	const text = raw.startsWith(`${kind} `) ? raw : `${kind} ${raw}`;
	try {
		const item = parseAbiItem(text) as AbiFunction | AbiEvent;
		return item.type === kind ? item : null;
	} catch {
		return null;
	}
}

/** ALLOWLIST_FUNCTION as a callable ABI item, or why it is refused. */
export function parseAllowlistFunction(raw: string): AllowlistFunction | string {
	const item = parseItem('function', raw) as AbiFunction | null;
	if (!item) return 'is not a Solidity function signature, e.g. addToAllowlist(address[])';
	const [input, ...rest] = item.inputs;
	if (!input || rest.length || (input.type !== 'address' && input.type !== 'address[]'))
		return 'must take exactly one argument of type address or address[], e.g. addToAllowlist(address[])';
	if (item.stateMutability === 'view' || item.stateMutability === 'pure')
		return 'must be a function that changes state, not view or pure';
	return { abi: item, takesArray: input.type === 'address[]' };
}

/** ALLOWLIST_EVENT as an ABI event whose first indexed argument is an address, or why it is refused. */
export function parseAllowlistEvent(raw: string): AbiEvent | string {
	const item = parseItem('event', raw) as AbiEvent | null;
	if (!item) return 'is not a Solidity event signature, e.g. Allowlisted(address indexed account)';
	if (item.anonymous) return 'must not be anonymous: the portal finds it by its signature';
	const firstIndexed = item.inputs.find((input) => input.indexed);
	if (firstIndexed?.type !== 'address')
		return 'must have the address as its first indexed argument, e.g. Allowlisted(address indexed account)';
	return item;
}
