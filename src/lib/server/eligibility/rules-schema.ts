import * as v from 'valibot';
import { ELIGIBILITY_LIMITS, type EligibilityRules } from '$lib/eligibility/rules';

/**
 * The stored shape of `application_forms.eligibility` (docs/eligibility.md), as a valibot schema:
 * what a save writes and what a check accepts from the table (a version seeded by SQL included).
 */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT256_MAX = 2n ** 256n - 1n;
// A decimal string of a uint256: no sign, no leading zeros, at most 78 digits.
const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const address = (what: string) =>
	v.pipe(
		v.string(`${what} must be an address.`),
		v.regex(ADDRESS, `${what} must be 0x and 40 hexadecimal characters.`),
		v.transform((s) => s.toLowerCase() as `0x${string}`)
	);

const uint256 = (what: string, min: bigint) =>
	v.pipe(
		v.string(`${what} must be a whole number written in digits.`),
		v.regex(DECIMAL, `${what} must be a whole number written in digits.`),
		v.check((s) => BigInt(s) <= UINT256_MAX, `${what} is larger than a uint256 can hold.`),
		v.check((s) => BigInt(s) >= min, `${what} must be at least ${min}.`)
	);

const count = v.pipe(
	v.number('The minimum must be a whole number.'),
	v.integer('The minimum must be a whole number.'),
	v.minValue(1, 'The minimum must be at least 1.'),
	v.maxValue(1_000_000_000, 'The minimum must be at most 1000000000.')
);

const label = v.optional(
	v.pipe(
		v.string('The label must be text.'),
		v.trim(),
		v.check((s) => !CONTROL.test(s), 'The label must not contain control characters or line breaks.'),
		v.maxLength(ELIGIBILITY_LIMITS.label, `The label must be at most ${ELIGIBILITY_LIMITS.label} characters.`),
		v.transform((s) => s || undefined)
	)
);

export const ruleSchema = v.variant(
	'kind',
	[
		v.object({ kind: v.literal('erc20'), token: address('The token'), min: uint256('The minimum', 1n), label }),
		v.object({ kind: v.literal('erc721'), contract: address('The contract'), min: count, label }),
		v.object({
			kind: v.literal('erc1155'),
			contract: address('The contract'),
			id: uint256('The token id', 0n),
			min: count,
			label
		})
	],
	'The kind must be ERC-20, ERC-721 or ERC-1155.'
);

export const eligibilitySchema = v.object({
	mode: v.picklist(['all', 'any'], 'Choose whether every rule or any one of them is needed.'),
	rules: v.pipe(
		v.array(ruleSchema),
		v.minLength(1, 'Add a rule, or remove the requirements.'),
		v.maxLength(ELIGIBILITY_LIMITS.maxRules, `A form has at most ${ELIGIBILITY_LIMITS.maxRules} rules.`)
	)
});

/** A label without `undefined` keys, so the stored JSON holds only what was given. */
function compact(rules: v.InferOutput<typeof eligibilitySchema>): EligibilityRules {
	return {
		mode: rules.mode,
		rules: rules.rules.map((r) => {
			const { label: l, ...rest } = r;
			return l ? { ...rest, label: l } : rest;
		})
	};
}

/**
 * The rules of a form version as stored: null when anyone may apply (null, or no rules), the rules when
 * they are well-formed, and `invalid` when the column holds something else (a bad SQL seed): a check
 * then cannot answer rather than letting everyone in.
 */
export function storedRules(value: unknown): EligibilityRules | null | 'invalid' {
	if (value === null || value === undefined) return null;
	if (typeof value === 'object' && Array.isArray((value as { rules?: unknown }).rules)) {
		if ((value as { rules: unknown[] }).rules.length === 0) return null;
	}
	const parsed = v.safeParse(eligibilitySchema, value);
	return parsed.success ? compact(parsed.output) : 'invalid';
}

/** Rules as the editor checked them, with a message per field (`rules.<i>.<field>`) otherwise. */
export function checkRules(
	value: unknown
): { ok: true; value: EligibilityRules } | { ok: false; errors: Record<string, string> } {
	const parsed = v.safeParse(eligibilitySchema, value, { abortPipeEarly: true });
	if (parsed.success) return { ok: true, value: compact(parsed.output) };
	const errors: Record<string, string> = {};
	for (const issue of parsed.issues) {
		const key = issue.path?.map((p) => String(p.key)).join('.') || 'rules';
		if (!(key in errors)) errors[key] = issue.message;
	}
	return { ok: false, errors };
}
