import { field_invisible } from '$lib/paraglide/messages/field_invisible.js';

/**
 * Characters that change how text reads without being seen (docs/security.md "Invisible characters",
 * decisions/0039): bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
 * direction marks (U+200E, U+200F, U+061C), zero-width characters (U+200B–U+200D, U+2060, U+FEFF) and the
 * other invisible format characters (U+2061–U+2064, U+206A–U+206F). Refused in what people type.
 */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

// Scripts whose words need no joiner: a joiner between their letters only hides a difference.
const NO_JOINERS = String.raw`\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}\p{sc=Common}\p{sc=Inherited}`;
/**
 * The two zero-width characters real text needs: a joiner (U+200D) inside an emoji sequence (👩‍💻,
 * 🏳️‍🌈: emoji, an optional variation selector or skin tone, then emoji), and a joiner or non-joiner
 * (U+200C) between two letters of a script that shapes with them (Persian, Urdu, Devanagari, Malayalam…).
 */
const NEEDED_JOINER = new RegExp(
	String.raw`(?<=\p{Extended_Pictographic}[\u{fe0f}\p{Emoji_Modifier}]?)\u200d(?=\p{Extended_Pictographic})` +
		String.raw`|(?<=[\p{L}\p{M}])(?<![${NO_JOINERS}])[\u200c\u200d](?=[\p{L}\p{M}])(?![${NO_JOINERS}])`,
	'gu'
);

/** Whether `s` holds a character that is refused: an invisible one other than a joiner real text needs. */
export const hasInvisible = (s: string): boolean => INVISIBLE.test(s) && INVISIBLE.test(s.replace(NEEDED_JOINER, ''));

/** The refusal, naming the field by its label (in the request's locale). */
export const invisibleMessage = (label: string) => field_invisible({ label });
