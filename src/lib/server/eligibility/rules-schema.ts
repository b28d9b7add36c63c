import * as v from 'valibot';
import { m } from '$lib/paraglide/messages';
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

// Each refusal in the reader's locale, said when it is raised (valibot calls a function message then).
const address = (what: () => string) =>
	v.pipe(
		v.string(() => m.eligibility_error_address_text({ what: what() })),
		v.regex(ADDRESS, () => m.eligibility_error_address({ what: what() })),
		v.transform((s) => s.toLowerCase() as `0x${string}`)
	);

const uint256 = (what: () => string, min: bigint) =>
	v.pipe(
		v.string(() => m.eligibility_error_digits({ what: what() })),
		v.regex(DECIMAL, () => m.eligibility_error_digits({ what: what() })),
		v.check(
			(s) => BigInt(s) <= UINT256_MAX,
			() => m.eligibility_error_uint256({ what: what() })
		),
		v.check(
			(s) => BigInt(s) >= min,
			() => m.eligibility_error_at_least({ what: what(), min: String(min) })
		)
	);

const count = v.pipe(
	v.number(() => m.eligibility_error_count_whole()),
	v.integer(() => m.eligibility_error_count_whole()),
	v.minValue(1, () => m.eligibility_error_at_least({ what: m.eligibility_what_minimum(), min: '1' })),
	v.maxValue(1_000_000_000, () => m.eligibility_error_count_max({ max: '1000000000' }))
);

const label = v.optional(
	v.pipe(
		v.string(() => m.eligibility_error_label_text()),
		v.trim(),
		v.check(
			(s) => !CONTROL.test(s),
			() => m.eligibility_error_label_control()
		),
		v.maxLength(ELIGIBILITY_LIMITS.label, () => m.eligibility_error_label_length({ max: ELIGIBILITY_LIMITS.label })),
		v.transform((s) => s || undefined)
	)
);

export const ruleSchema = v.variant(
	'kind',
	[
		v.object({
			kind: v.literal('erc20'),
			token: address(m.eligibility_what_token),
			min: uint256(m.eligibility_what_minimum, 1n),
			label
		}),
		v.object({ kind: v.literal('erc721'), contract: address(m.eligibility_what_contract), min: count, label }),
		v.object({
			kind: v.literal('erc1155'),
			contract: address(m.eligibility_what_contract),
			id: uint256(m.eligibility_what_token_id, 0n),
			min: count,
			label
		})
	],
	() => m.eligibility_error_kind()
);

export const eligibilitySchema = v.object({
	mode: v.picklist(['all', 'any'], () => m.eligibility_error_mode()),
	rules: v.pipe(
		v.array(ruleSchema),
		v.minLength(1, () => m.eligibility_error_add_rule()),
		v.maxLength(ELIGIBILITY_LIMITS.maxRules, () => m.eligibility_error_max_rules({ max: ELIGIBILITY_LIMITS.maxRules }))
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
