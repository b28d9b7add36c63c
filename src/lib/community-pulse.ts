import * as v from 'valibot';

/** The body of GET /api/community-pulse, as the server builds it and the browser checks it (docs/http.md). */

const HttpUrl = v.pipe(v.string(), v.regex(/^https?:\/\//i));

/** One issue card. Titles and labels are plain text, never HTML. */
export const CardSchema = v.object({
	number: v.number(),
	title: v.string(),
	url: HttpUrl,
	author: v.string(),
	labels: v.array(v.object({ name: v.string(), color: v.pipe(v.string(), v.regex(/^[0-9a-f]{6}$/i)) })),
	comments: v.number(),
	createdAt: v.string(),
	updatedAt: v.string()
});

/** The 200 body. */
export const PulseFeedSchema = v.object({ items: v.array(CardSchema), fetchedAt: v.string(), source: HttpUrl });

export type Card = v.InferOutput<typeof CardSchema>;
export type PulseFeed = v.InferOutput<typeof PulseFeedSchema>;
