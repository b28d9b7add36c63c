/**
 * The body format of the community's messages (issue 59): paragraphs (set apart by a blank line), links
 * (`[words](https://…)`, http(s) only), bold (`**words**`) and lists (lines starting with `- ` or `* `),
 * with placeholders (`{name}`, …). Exactly these four constructs, so a small parser of our own rather
 * than a Markdown library: `marked` and the like parse far more (HTML blocks, images, tables) that would
 * have to be switched off and then sanitised again; here nothing else exists to be let through.
 *
 * A body is parsed into `Markup`, a structure of text pieces, never HTML: every renderer escapes each
 * piece (`markupHtml`) or shows it as text (Svelte's `{text}`), so a `<script>` a template holds is read
 * as the characters it is. Placeholders are filled after parsing, into the text pieces only: a reason or a
 * name that looks like `**this**` or `[x](…)` stays the words it is.
 */

import { isolatesAsBdi } from './isolate';

/** One run of text: plain, bold, or a link (`href` http(s) only; `link` true: the page placeholder `{link}`). */
export interface Inline {
	text: string;
	bold?: true;
	href?: string;
	/** The `{link}` placeholder as a link's target: the applicant's page, resolved by whoever shows it. */
	link?: true;
}

/** A paragraph or a list of items (each item a line of runs). */
export type Block = { p: Inline[] } | { ul: Inline[][] };

export type Markup = Block[];

/** The placeholders a template may use (DECISIONS 2026-12-02). */
export const PLACEHOLDERS = [
	'name',
	'community',
	'program',
	'round',
	'reason',
	'asks',
	'reapplyAfter',
	'link'
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** The subject's and the body's longest lengths, as the table's checks hold them. */
export const SUBJECT_MAX = 200;
export const BODY_MAX = 5000;

const PLACEHOLDER = /\{([^{}\s]*)\}/g;

/** The first placeholder in `text` that is not one of `allowed`, or null. */
export function unknownPlaceholder(text: string, allowed: readonly string[] = PLACEHOLDERS): string | null {
	for (const [, name] of text.matchAll(PLACEHOLDER)) if (!allowed.includes(name!)) return `{${name}}`;
	return null;
}

/**
 * A link or bold run. Neither part of a link may hold a bracket and bold stops at the next `*`, so an
 * attempt that fails stops at the next `[` or `*`: one pass over a line reads each character a bounded
 * number of times, whatever the body (a run of `[` after many bold runs took 4.8 s for 5,000 characters
 * when each run was looked for again from scratch over the rest of the line).
 */
const LINK_SOURCE = String.raw`\[([^\[\]\n]+)\]\(([^)\[\]\s"'<>]+)\)`;
const BOLD_SOURCE = String.raw`\*\*([^*\n]+)\*\*`;
const LINK = new RegExp(LINK_SOURCE, 'g');
const RUN = new RegExp(`${LINK_SOURCE}|${BOLD_SOURCE}`, 'g');

/** http(s) only: `javascript:`, `data:` and every other scheme stay text. */
export const isWebUrl = (url: string) => {
	if (!/^https?:\/\//i.test(url)) return false;
	try {
		new URL(url);
		return true;
	} catch {
		return false;
	}
};

/** The first link whose target is neither http(s) nor `{link}`, as written, or null. */
export function badLink(body: string): string | null {
	for (const match of body.matchAll(LINK)) {
		const href = match[2]!;
		if (href !== '{link}' && !isWebUrl(href)) return href;
	}
	return null;
}

function inline(line: string): Inline[] {
	const out: Inline[] = [];
	let at = 0;
	for (const run of line.matchAll(RUN)) {
		if (run.index > at) out.push({ text: line.slice(at, run.index) });
		at = run.index + run[0].length;
		const [whole, words, href, bold] = run;
		if (bold !== undefined) out.push({ text: bold, bold: true });
		else if (href === '{link}') out.push({ text: words!, link: true });
		else if (isWebUrl(href!)) out.push({ text: words!, href });
		else out.push({ text: whole });
	}
	if (at < line.length) out.push({ text: line.slice(at) });
	return out;
}

const ITEM = /^\s*[-*]\s+(.*)$/;

/** A body as paragraphs and lists. */
export function parseMarkup(body: string): Markup {
	const blocks: Markup = [];
	for (const chunk of body.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
		let para: string[] = [];
		let items: string[] = [];
		const flush = () => {
			if (para.length) blocks.push({ p: inline(para.join(' ')) });
			if (items.length) blocks.push({ ul: items.map(inline) });
			para = [];
			items = [];
		};
		for (const raw of chunk.split('\n')) {
			const line = raw.trim();
			if (!line) continue;
			const item = ITEM.exec(line);
			if (item) {
				if (para.length) flush();
				items.push(item[1]!);
			} else {
				if (items.length) flush();
				para.push(line);
			}
		}
		flush();
	}
	return blocks;
}

/** The placeholders only some moves have values for: what uses them is left out without one. */
const OPTIONAL = ['reason', 'asks', 'reapplyAfter'] as const;

/** The values of a message's placeholders; an absent one reads as nothing. */
export type PlaceholderValues = Partial<Record<Exclude<Placeholder, 'link'>, string>>;

/**
 * Fills the placeholders of parsed markup (and of a subject, with `fillText`): the values go into text
 * pieces as text. `{link}` outside a link's target is the page's address written out (`link: true`).
 * A paragraph or item using `{reason}`, `{asks}` or `{reapplyAfter}` without a value, and one left empty,
 * is dropped.
 */
export function fillMarkup(markup: Markup, values: PlaceholderValues): Markup {
	const fillLine = (runs: Inline[]): Inline[] =>
		runs
			.flatMap((run): Inline[] => {
				if (run.href) return [{ ...run, text: fillText(run.text, values) }];
				if (run.link) return [{ ...run, text: fillText(run.text, values) }];
				// `{link}` in the text: the page's address, as a link to itself.
				return run.text.split('{link}').flatMap((piece, i) => {
					const filled: Inline[] = [];
					if (i > 0) filled.push({ text: '', link: true });
					const text = fillText(piece, values);
					if (text) filled.push(run.bold ? { text, bold: true } : { text });
					return filled;
				});
			})
			.filter((run) => run.text !== '' || run.link);
	const hasWords = (runs: Inline[]) => runs.some((r) => r.link || r.text.trim() !== '');
	// A paragraph or item about a reason, the asks or a reapply date a move does not have is left out whole.
	const missing = (runs: Inline[]) =>
		OPTIONAL.some((name) => !values[name] && runs.some((r) => r.text.includes(`{${name}}`)));
	return markup.flatMap((block): Markup => {
		if ('p' in block) {
			if (missing(block.p)) return [];
			const p = fillLine(block.p);
			return hasWords(p) ? [{ p }] : [];
		}
		const ul = block.ul
			.filter((item) => !missing(item))
			.map(fillLine)
			.filter(hasWords);
		return ul.length ? [{ ul }] : [];
	});
}

/** A subject (or any line) with its placeholders filled; `{link}` stays as written unless given. */
export const fillText = (text: string, values: PlaceholderValues & { link?: string }) =>
	text.replace(PLACEHOLDER, (whole, name: string) =>
		Object.hasOwn(values, name) ? (values as Record<string, string | undefined>)[name]! : whole
	);

/** The `{link}` run's words: its own, or the address itself when it stands alone. */
const linkWords = (run: Inline, url: string) => run.text || url;

/** Markup as plain text: paragraphs apart by a blank line, items as "• …", links as "words (https://…)". */
export function markupText(markup: Markup, linkUrl: string): string {
	const line = (runs: Inline[]) =>
		runs
			.map((run) => {
				const href = run.link ? linkUrl : run.href;
				if (!href) return run.text;
				const words = run.link ? linkWords(run, href) : run.text;
				return words === href ? href : `${words} (${href})`;
			})
			.join('');
	return markup
		.map((block) => ('p' in block ? line(block.p) : block.ul.map((item) => `• ${line(item)}`).join('\n')))
		.join('\n\n');
}

export const escapeHtml = (s: string) =>
	s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Markup as HTML for an e-mail: every piece escaped, links http(s) only, inline styles only, user text in `<bdi>`. */
export function markupHtml(markup: Markup, linkUrl: string, style: { p: string; link: string }): string {
	const line = (runs: Inline[]) =>
		runs
			.map((run) => {
				const href = run.link ? linkUrl : run.href;
				// A placeholder's value set apart (FSI … PDI: a name, a reason, a comment) is a `<bdi>` of its own.
				const words = isolatesAsBdi(escapeHtml(run.link ? linkWords(run, linkUrl) : run.text));
				if (href && isWebUrl(href)) return `<a href="${escapeHtml(href)}" style="${style.link}">${words}</a>`;
				return run.bold ? `<strong>${words}</strong>` : words;
			})
			.join('');
	return markup
		.map((block) =>
			'p' in block
				? `<p style="${style.p}">${line(block.p)}</p>`
				: `<ul style="${style.p};padding-inline-start:24px">${block.ul.map((item) => `<li>${line(item)}</li>`).join('')}</ul>`
		)
		.join('');
}
