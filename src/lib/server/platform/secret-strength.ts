import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * zxcvbn's top score: at least 10^10 guesses, "strong protection from an offline slow-hash attack",
 * which is the attack a session secret faces (docs/decisions/0014-session-keys-from-scrypt.md).
 */
export const MIN_SECRET_SCORE = 4;

/** How to make a secret that passes, for the configuration error. */
export const SECRET_ADVICE = 'use a random secret, e.g. the output of `openssl rand -base64 32`';

/**
 * A check of secrets against zxcvbn's common-password, name and keyboard-pattern dictionaries.
 * The dictionaries are built on the first call and freed with the checker (about 10 MB of heap while alive).
 */
export function guessableSecretCheck(): (secret: string) => boolean {
	let zxcvbn: ZxcvbnFactory | null = null;
	return (secret) => {
		zxcvbn ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
		return zxcvbn.check(secret).score < MIN_SECRET_SCORE;
	};
}
