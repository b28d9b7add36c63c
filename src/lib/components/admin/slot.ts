/**
 * A message with markup inside (a `<code>`, a link, a `<time>`): the message gets `slot(0)`,
 * `slot(1)`… as its inputs, and `Slotted.svelte` renders its text with each slot's snippet in place,
 * wherever the locale's words put it.
 */
// A private-use character marks a slot: no message holds one (typed text goes into a snippet, never an input).
export const slot = (index: number) => `\uE000${index}\uE000`;

/** Text, slot number, text, slot number, … text. */
export const slotPieces = (text: string) => text.split(/\uE000(\d+)\uE000/);
