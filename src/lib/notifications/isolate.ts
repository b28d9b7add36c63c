/**
 * Pieces of user text set apart from the sentence around them (issue 61): a community's label, a reviewer's
 * comment, a reason, a name. A notification's body is stored as text with each piece between FSI and PDI
 * (U+2068 … U+2069), so that two English pieces side by side in an Arabic body (a question and its comment)
 * keep their own order and punctuation; the e-mail's HTML part and the inbox show each as its own `<bdi>`.
 */
const FSI = '\u2068';
const PDI = '\u2069';
/** Directional isolates and embeddings inside user text would unbalance the marks around it. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const ISOLATED = /\u2068([^\u2068\u2069]*)\u2069/g;

/** One piece of user text between FSI and PDI; an empty piece stays empty. */
export const isolate = (text: string) => (text ? `${FSI}${text.replace(BIDI_CONTROLS, '')}${PDI}` : '');

/** A stored text as its pieces, each isolated one (between FSI and PDI) marked, the marks removed. */
export function isolatedPieces(text: string): { text: string; isolated: boolean }[] {
	const pieces: { text: string; isolated: boolean }[] = [];
	let at = 0;
	for (const match of text.matchAll(ISOLATED)) {
		if (match.index > at) pieces.push({ text: text.slice(at, match.index), isolated: false });
		pieces.push({ text: match[1]!, isolated: true });
		at = match.index + match[0].length;
	}
	if (at < text.length || pieces.length === 0) pieces.push({ text: text.slice(at), isolated: false });
	return pieces;
}

/** Escaped HTML whose isolated pieces become `<bdi>` elements (FSI and PDI are never escaped away). */
export const isolatesAsBdi = (html: string) => html.replace(ISOLATED, '<bdi>$1</bdi>');
