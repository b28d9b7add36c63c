/**
 * A message whose sentence holds markup (a <time>, a <strong>, a <code>): the message is called with
 * `slot(i)` for each such part, and `pieces` cuts the translated text at them, so each language keeps
 * its own word order and the page puts the markup where the translation placed it.
 */
const MARK = '\u0001';
// A control character: no translation holds one, and no input from a person reaches a message with one.
// eslint-disable-next-line no-control-regex
const AT_MARKS = /\u0001(\d+)\u0001/;

export const slot = (i: number) => `${MARK}${i}${MARK}`;

/** The text between the slots, and each slot as its number, in reading order (empty text left out). */
export const pieces = (text: string): (string | number)[] =>
	text
		.split(AT_MARKS)
		.map((part, i) => (i % 2 ? Number(part) : part))
		.filter((part) => part !== '');
