import { desc, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Database } from '../db/client';
import { communitySettings, communitySettingsEvents } from '../db/schema';
import type { SignedInMember } from '../auth/guards';
import type { FormFields } from '../platform/forms';
import { textField, validate } from '../platform/forms';
import { invalid, rateLimited, type FieldErrors, type Outcome } from '../platform/outcome';
import { consume } from '../platform/rate-limit';
import { logger } from '../platform/observability';
import { accentContrast, ACCENT_MINIMUM, ratioText, THEME_BACKGROUNDS } from '$lib/branding/accent';
import type { CommunityLink } from '$lib/branding/branding';
import type { SavedCommunity } from '$lib/branding/saved';
import { baseLocale, LOCALE_NAMES, locales } from '$lib/i18n/locales';
import { m } from '$lib/paraglide/messages';
import { inspectLogo, LOGO_MAX_BYTES } from './logo';

/** How long a process keeps the saved look before reading it again: a save shows on every instance within it. */
/** The locales a name and a description may be translated into (the base locale's are `name` and `description`). */
export const OTHER_LOCALES = locales.filter((locale) => locale !== baseLocale);

export const SETTINGS_CACHE_MS = 1_000;
export const NAME_MAX = 60;
export const DESCRIPTION_MAX = 300;
export const LINK_LABEL_MAX = 40;
export const LINKS_MAX = 8;

/** The fields of `POST /admin/settings?/save` (multipart; `logo` a file, `removeLogo` a checkbox). */
export const SETTINGS_FIELDS = [
	'name',
	'description',
	'links',
	'accent',
	'removeLogo',
	...OTHER_LOCALES.flatMap((locale) => [`name.${locale}`, `description.${locale}`])
] as const;

/** The saved look's columns: everything a page shows, never the logo's bytes. */
const SAVED_COLUMNS = {
	name: communitySettings.name,
	description: communitySettings.description,
	links: communitySettings.links,
	accent: communitySettings.accent,
	translations: communitySettings.translations,
	logoSha256: communitySettings.logoSha256
};

const cache = new WeakMap<Database, { saved: SavedCommunity | null; at: number }>();

/**
 * How long a page waits for the saved look before it renders with the last one read (or the build's): a
 * database that hangs rather than refuses must not hold every page, nor its 503 (a read still running is
 * shared, and the next request after it ends asks again).
 */
export const SETTINGS_WAIT_MS = 500;

const reading = new WeakMap<Database, Promise<SavedCommunity | null>>();

/**
 * The look `/admin/settings` saved (null before the first save), read at most once a second per process.
 * When the database cannot answer, the last look read stays (or none: the build's), so the pages that need
 * no database (`/`, `/setup`) still render; the next request asks again. `fresh` waits for the database.
 */
export async function savedCommunity(
	db: Database,
	options: { ready?: () => Promise<void>; fresh?: boolean } = {},
	now = Date.now()
): Promise<SavedCommunity | null> {
	const hit = cache.get(db);
	if (!options.fresh && hit && now - hit.at < SETTINGS_CACHE_MS && now >= hit.at) return hit.saved;
	if (options.fresh) return readSaved(db, options.ready, hit?.saved ?? null);
	let read = reading.get(db);
	if (!read) {
		read = readSaved(db, options.ready, hit?.saved ?? null).finally(() => reading.delete(db));
		reading.set(db, read);
	}
	let timer: ReturnType<typeof setTimeout> | undefined;
	const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SETTINGS_WAIT_MS)));
	const answer = await Promise.race([read, late]);
	clearTimeout(timer);
	return answer === 'late' ? (hit?.saved ?? null) : answer;
}

async function readSaved(
	db: Database,
	ready: (() => Promise<void>) | undefined,
	last: SavedCommunity | null
): Promise<SavedCommunity | null> {
	try {
		await ready?.();
		const [row] = await db.select(SAVED_COLUMNS).from(communitySettings).where(eq(communitySettings.id, 1));
		const saved = row ?? null;
		cache.set(db, { saved, at: Date.now() });
		return saved;
	} catch (err) {
		logger.warn(
			`branding: the saved look could not be read (${(err as { code?: string }).code ?? 'error'}); the last one stays`
		);
		// Asked again a second after the failure, not by every request meanwhile (each would wait for the database).
		cache.set(db, { saved: last, at: Date.now() });
		return last;
	}
}

/** The saved logo of this hash, or null (none saved, or another one now). */
export async function savedLogo(db: Database, sha256: string): Promise<{ bytes: Uint8Array; type: string } | null> {
	if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
	const [row] = await db
		.select({ bytes: communitySettings.logo, type: communitySettings.logoType })
		.from(communitySettings)
		.where(sql`${communitySettings.id} = 1 and ${communitySettings.logoSha256} = ${sha256}`);
	return row?.bytes && row.type ? { bytes: row.bytes, type: row.type } : null;
}

/** The last saves, newest first: who, when, which fields. */
export async function recentSettingsEvents(db: Database, limit = 10) {
	return db
		.select({
			actor: communitySettingsEvents.actor,
			changed: communitySettingsEvents.changed,
			at: communitySettingsEvents.at
		})
		.from(communitySettingsEvents)
		.orderBy(desc(communitySettingsEvents.at), desc(communitySettingsEvents.id))
		.limit(limit);
}

const schema = v.object({
	name: textField(() => m.settings_name_label(), { max: NAME_MAX }),
	description: textField(() => m.settings_description_label(), { max: DESCRIPTION_MAX, multiline: true }),
	links: textField(() => m.settings_links_label(), { max: LINKS_MAX * 2100, multiline: true }),
	accent: textField(() => m.settings_accent_label(), { max: 64 }),
	...Object.fromEntries(
		OTHER_LOCALES.flatMap((locale) => [
			[`name.${locale}`, textField(() => m.settings_name_in({ language: LOCALE_NAMES[locale] }), { max: NAME_MAX })],
			[
				`description.${locale}`,
				textField(() => m.settings_description_in({ language: LOCALE_NAMES[locale] }), {
					max: DESCRIPTION_MAX,
					multiline: true
				})
			]
		])
	)
});

function isHttpsUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hostname !== '';
	} catch {
		return false;
	}
}

/** `label | https://…` a line; the first bad line is named. */
function parseLinks(text: string): { links: CommunityLink[] } | { error: string } {
	const lines = text
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => line !== '');
	if (lines.length > LINKS_MAX) return { error: m.settings_links_too_many({ max: LINKS_MAX }) };
	const links: CommunityLink[] = [];
	for (const [i, line] of lines.entries()) {
		const bar = line.lastIndexOf('|');
		const label = bar === -1 ? '' : line.slice(0, bar).trim();
		const href = bar === -1 ? line : line.slice(bar + 1).trim();
		if (label === '' || [...label].length > LINK_LABEL_MAX || !isHttpsUrl(href) || href.length > 2000)
			return { error: m.settings_links_line({ line: i + 1, max: LINK_LABEL_MAX }) };
		links.push({ label, href: new URL(href).href });
	}
	return { links };
}

/** Why an accent is refused (its ratio against the theme it falls short in), or null when it is fine. */
export function accentRefusal(accent: string): string | null {
	if (!/^#[0-9a-f]{6}$/i.test(accent)) return m.settings_accent_format();
	const checked = accentContrast(accent.toLowerCase());
	if (checked.short === null) return null;
	const theme = checked.short;
	return m.settings_accent_contrast({
		accent: accent.toLowerCase(),
		ratio: ratioText(checked[theme]),
		background: THEME_BACKGROUNDS[theme],
		theme: theme === 'light' ? m.settings_theme_light() : m.settings_theme_dark(),
		minimum: `${ACCENT_MINIMUM[theme]}:1`
	});
}

type Row = typeof communitySettings.$inferSelect;

/** JSON with every object's keys sorted: jsonb gives them back in its own order. */
const canonical = (value: unknown): string =>
	JSON.stringify(value, (_, v: unknown) =>
		v && typeof v === 'object' && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
			: v
	);

/**
 * Saves the community's look (issue 59): name, description, links, accent, translations, and a logo when
 * one is sent (`removeLogo` goes back to the environment's). A blank field keeps the environment's value.
 * Every field is checked before anything is written; a refusal names each bad field. The row and its
 * `community_settings_events` row are written in one transaction; a save that changes nothing writes none.
 */
export async function saveCommunity(
	db: Database,
	actor: SignedInMember,
	form: FormFields,
	input: Record<string, unknown>
): Promise<Outcome<{ changed: string[] }>> {
	const limit = await consume(db, actor.address, 'settingsChange');
	if (!limit.ok) return rateLimited(limit);
	const errors: FieldErrors = {};
	const parsed = validate(schema, input);
	if (!parsed.ok) Object.assign(errors, parsed.errors);
	const values = (parsed.ok ? parsed.value : {}) as Record<string, string | undefined>;

	let links: CommunityLink[] | null = null;
	if (parsed.ok && values.links) {
		const read = parseLinks(values.links);
		if ('error' in read) errors.links = read.error;
		else links = read.links;
	}
	const accent = values.accent ? values.accent.toLowerCase() : null;
	if (parsed.ok && accent) {
		const refusal = accentRefusal(accent);
		if (refusal) errors.accent = refusal;
	}
	const sent = form.getAll('logo');
	let logo: Awaited<ReturnType<typeof inspectLogo>> = null;
	if (sent.length > 1) errors.logo = m.settings_logo_one();
	else if (sent.length === 1) {
		const file = sent[0]!;
		if (typeof file === 'string') {
			if (file !== '') errors.logo = m.settings_logo_not_file();
		} else if (file.size === 0 && file.name !== '') errors.logo = m.settings_logo_type();
		else if (file.size > LOGO_MAX_BYTES) errors.logo = m.settings_logo_too_big({ max: '512 KiB' });
		else {
			logo = await inspectLogo(new Uint8Array(await file.arrayBuffer()));
			if (logo && !logo.ok) errors.logo = logo.message;
		}
	}
	// A checkbox: absent or empty, kept; `on` (what a browser sends) or `true`, removed; anything else refused.
	const removeLogo = input.removeLogo === 'on' || input.removeLogo === 'true';
	if (!removeLogo && input.removeLogo !== undefined && input.removeLogo !== '')
		errors.removeLogo = m.settings_logo_remove_invalid();
	if (Object.keys(errors).length > 0 || !parsed.ok) return invalid(errors);

	const translations: Row['translations'] = {};
	for (const locale of OTHER_LOCALES) {
		const name = values[`name.${locale}`];
		const description = values[`description.${locale}`];
		if (name || description)
			translations[locale] = { ...(name ? { name } : {}), ...(description ? { description } : {}) };
	}
	const next = {
		name: values.name || null,
		description: values.description || null,
		links,
		accent,
		translations
	};

	const changed = await db.transaction(async (tx) => {
		const [before] = await tx
			.select(SAVED_COLUMNS)
			.from(communitySettings)
			.where(eq(communitySettings.id, 1))
			.for('update');
		const logoFields =
			logo?.ok === true
				? { logo: logo.bytes, logoType: logo.type, logoSha256: logo.sha256 }
				: removeLogo
					? { logo: null, logoType: null, logoSha256: null }
					: {};
		const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
			(key) => canonical(before?.[key] ?? (key === 'translations' ? {} : null)) !== canonical(next[key])
		) as string[];
		if ('logoSha256' in logoFields && (before?.logoSha256 ?? null) !== logoFields.logoSha256) changed.push('logo');
		if (changed.length === 0) return changed;
		const set = { ...next, ...logoFields, updatedBy: actor.address, updatedAt: new Date() };
		await tx
			.insert(communitySettings)
			.values({ id: 1, ...set })
			.onConflictDoUpdate({ target: communitySettings.id, set });
		await tx.insert(communitySettingsEvents).values({ actor: actor.address, changed });
		return changed;
	});
	if (changed.length > 0) cache.delete(db);
	return { ok: true, value: { changed } };
}
