/**
 * The body of GET /api/community-pulse, as the server builds it and the browser checks it (docs/http.md).
 * Checked by hand, not with valibot: the schema library would take a real share of the home page's
 * JavaScript budget (docs/design-system.md "Budget"; the figure: bench/README.md "Figures behind the code").
 */

/** One issue card. Titles and labels are plain text, never HTML. */
export interface Card {
	number: number;
	title: string;
	url: string;
	author: string;
	labels: { name: string; color: string }[];
	comments: number;
	createdAt: string;
	updatedAt: string;
}

/** The 200 body. */
export interface PulseFeed {
	items: Card[];
	fetchedAt: string;
	source: string;
}

type Loose = Record<string, unknown>;
const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value);
const isHttpUrl = (value: unknown) => isString(value) && /^https?:\/\//i.test(value);

function isLabel(value: unknown): boolean {
	return isObject(value) && isString(value.name) && isString(value.color) && /^[0-9a-f]{6}$/i.test(value.color);
}

export function isCard(value: unknown): value is Card {
	return (
		isObject(value) &&
		isNumber(value.number) &&
		isString(value.title) &&
		isHttpUrl(value.url) &&
		isString(value.author) &&
		Array.isArray(value.labels) &&
		value.labels.every(isLabel) &&
		isNumber(value.comments) &&
		isString(value.createdAt) &&
		isString(value.updatedAt)
	);
}

/** Whether `value` has the 200 body's shape (extra keys are ignored, as a lenient reader does). */
export function isPulseFeed(value: unknown): value is PulseFeed {
	return (
		isObject(value) &&
		Array.isArray(value.items) &&
		value.items.every(isCard) &&
		isString(value.fetchedAt) &&
		isHttpUrl(value.source)
	);
}
