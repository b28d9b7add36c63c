/**
 * The community's branding (docs/configuration.md "Branding"): read from PUBLIC_COMMUNITY_* and
 * PUBLIC_ACCENT_COLOR at build time by vite.config.ts, which embeds the result (`__BRANDING__`) and the
 * accent colours into the CSS. Pure: no imports, so the Vite config can load it.
 */

export interface CommunityLink {
	label: string;
	href: string;
}

export interface Branding {
	name: string;
	description: string;
	/** An https URL or a path under static/; null: the generated monogram at /favicon.svg. */
	logoUrl: string | null;
	/** `#rrggbb`, lowercase. */
	accent: string;
	links: CommunityLink[];
}

export const DEFAULT_BRANDING: Branding = {
	name: 'Member portal',
	description:
		'A community that welcomes members by application: sign in with your wallet, tell us about yourself and check in.',
	logoUrl: null,
	accent: '#6d4ae8',
	links: []
};

export class BrandingError extends Error {
	constructor(readonly problems: { variable: string; problem: string }[]) {
		super(
			'Invalid branding configuration:\n' +
				problems.map(({ variable, problem }) => `  - ${variable}: ${problem}`).join('\n')
		);
		this.name = 'BrandingError';
	}
}

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const HEX_COLOR = /^#[0-9a-f]{6}$/i;
const MAX_LINKS = 8;

function isHttpsUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'https:' && url.username === '' && url.password === '';
	} catch {
		return false;
	}
}

/** A path under static/: one leading slash (never `//host`), no `..`, no backslash, no query tricks. */
function isStaticPath(value: string): boolean {
	return /^\/[A-Za-z0-9._~\-/]+$/.test(value) && !value.startsWith('//') && !value.split('/').includes('..');
}

function text(value: string | undefined, max: number, fallback: string, variable: string, problems: Problem[]) {
	const trimmed = value?.trim() ?? '';
	if (trimmed === '') return fallback;
	if (CONTROL.test(trimmed)) problems.push({ variable, problem: 'must not contain control characters' });
	else if ([...trimmed].length > max) problems.push({ variable, problem: `must be at most ${max} characters` });
	return trimmed;
}

type Problem = { variable: string; problem: string };

/** Validates the branding variables; throws a BrandingError naming every bad one. Unset or blank: the default. */
export function parseBranding(env: Record<string, string | undefined>): Branding {
	const problems: Problem[] = [];
	const name = text(env.PUBLIC_COMMUNITY_NAME, 60, DEFAULT_BRANDING.name, 'PUBLIC_COMMUNITY_NAME', problems);
	const description = text(
		env.PUBLIC_COMMUNITY_DESCRIPTION,
		300,
		DEFAULT_BRANDING.description,
		'PUBLIC_COMMUNITY_DESCRIPTION',
		problems
	);

	let logoUrl: string | null = null;
	const logo = env.PUBLIC_COMMUNITY_LOGO_URL?.trim() ?? '';
	if (logo !== '') {
		if (isHttpsUrl(logo) || isStaticPath(logo)) logoUrl = logo;
		else
			problems.push({
				variable: 'PUBLIC_COMMUNITY_LOGO_URL',
				problem: 'must be an https URL or a path like /logo.svg'
			});
	}

	let accent = DEFAULT_BRANDING.accent;
	const color = env.PUBLIC_ACCENT_COLOR?.trim() ?? '';
	if (color !== '') {
		if (HEX_COLOR.test(color)) accent = color.toLowerCase();
		else problems.push({ variable: 'PUBLIC_ACCENT_COLOR', problem: 'must be a colour like #6d4ae8' });
	}

	const links: CommunityLink[] = [];
	const entries = (env.PUBLIC_COMMUNITY_LINKS ?? '')
		.split(',')
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
	for (const entry of entries) {
		const at = entry.indexOf('=');
		const label = entry.slice(0, at).trim();
		const href = entry.slice(at + 1).trim();
		if (at < 1 || label === '' || [...label].length > 40 || CONTROL.test(label) || !isHttpsUrl(href)) {
			problems.push({
				variable: 'PUBLIC_COMMUNITY_LINKS',
				problem: 'each entry must be Label=https://… (label at most 40)'
			});
			break;
		}
		links.push({ label, href });
	}
	if (links.length > MAX_LINKS) {
		problems.push({ variable: 'PUBLIC_COMMUNITY_LINKS', problem: `at most ${MAX_LINKS} links` });
	}

	if (problems.length > 0) throw new BrandingError(problems);
	return { name, description, logoUrl, accent, links };
}

/** `Apply · Name`; the home page is the name alone. */
export function pageTitle(branding: Pick<Branding, 'name'>, page?: string): string {
	return page ? `${page} · ${branding.name}` : branding.name;
}

/** Where the header mark, favicon and link previews find the logo. */
export function logoHref(branding: Pick<Branding, 'logoUrl'>): string {
	return branding.logoUrl ?? '/favicon.svg';
}

/** What Safe{Wallet} reads from /manifest.json to list the portal as a custom Safe App. */
export interface SafeAppManifest {
	name: string;
	description: string;
	/** An https URL, or a path Safe{Wallet} resolves against the app's URL (so without the leading slash). */
	iconPath: string;
}

export function safeAppManifest(branding: Pick<Branding, 'name' | 'description' | 'logoUrl'>): SafeAppManifest {
	const logo = logoHref(branding);
	return { name: branding.name, description: branding.description, iconPath: logo.replace(/^\//, '') };
}
