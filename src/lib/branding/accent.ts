/**
 * The accent colour's arithmetic (docs/design-system.md): WCAG 2 luminance and contrast, the tokens of both
 * schemes, the check /admin/settings makes (decision 0050), and the monogram drawn on the accent. Pure with
 * no imports (vite.config.ts loads it). Apart from branding.ts, which the root layout loads on every page:
 * only the build, the server and the settings page use it, so none of it ships with the other pages.
 */

type Rgb = [number, number, number];

function rgb(hex: string): Rgb {
	return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

function hex([r, g, b]: Rgb): string {
	return '#' + [r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('');
}

export function luminance(color: string): number {
	const [r, g, b] = rgb(color).map((c) => {
		const s = c / 255;
		return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
	}) as Rgb;
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
	const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
	return (hi + 0.05) / (lo + 0.05);
}

/** `a` moved towards `b` by `t` (0..1) in sRGB. */
export function mix(a: string, b: string, t: number): string {
	const [x, y] = [rgb(a), rgb(b)];
	return hex(x.map((c, i) => c + (y[i]! - c) * t) as Rgb);
}

/** Black or white text on `background`, whichever contrasts more (always at least 4.58:1). */
export function textOn(background: string): '#000000' | '#ffffff' {
	return contrast(background, '#000000') >= contrast(background, '#ffffff') ? '#000000' : '#ffffff';
}

/** `color` moved towards `towards` in small steps until it reaches `ratio` against every background. */
export function readableOn(color: string, backgrounds: string[], towards: string, ratio = 4.5): string {
	for (let step = 0; step <= 20; step++) {
		const candidate = mix(color, towards, step / 20);
		if (backgrounds.every((bg) => contrast(candidate, bg) >= ratio)) return candidate;
	}
	return towards;
}

/** The page backgrounds (from src/app.css) that accent-coloured text must be readable on. */
export const LIGHT_BACKGROUNDS = ['#fafafb', '#ffffff', '#f3f2f6'];
export const DARK_BACKGROUNDS = ['#121216', '#1b1b21', '#24242c'];

/** The page background of each theme (src/app.css `--bg`), which decision 0050 checks an accent against. */
export const THEME_BACKGROUNDS = { light: '#fafafb', dark: '#121216' } as const;

/**
 * What an accent must reach against each theme's background (docs/decisions/0050-an-accent-checked-as-used.md):
 * in the light theme it is the colour of links and of buttons' fill, text contrast (4.5:1); in the dark
 * theme it fills buttons and marks the current tab, non-text contrast (3:1), while text there takes a
 * lighter tone derived from it (`accentTokens`). No colour reaches 4.5:1 against both backgrounds.
 */
export const ACCENT_MINIMUM = { light: 4.5, dark: 3 } as const;

/** An accent's contrast against each theme's background, and the first theme where it falls short (or null). */
export function accentContrast(accent: string): { light: number; dark: number; short: 'light' | 'dark' | null } {
	const light = contrast(accent, THEME_BACKGROUNDS.light);
	const dark = contrast(accent, THEME_BACKGROUNDS.dark);
	const short = light < ACCENT_MINIMUM.light ? 'light' : dark < ACCENT_MINIMUM.dark ? 'dark' : null;
	return { light, dark, short };
}

/** A ratio as people read it: two decimals, rounded down (4.499 is not 4.50:1). */
export const ratioText = (ratio: number) => `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;

export interface AccentTokens {
	accent: string;
	onAccent: string;
	light: { accentStrong: string; accentSoft: string };
	dark: { accentStrong: string; accentSoft: string };
}

/** The accent tokens of both schemes: text colours chosen for WCAG AA (4.5:1) against their backgrounds. */
export function accentTokens(accent: string): AccentTokens {
	const lightSoft = mix(accent, '#ffffff', 0.88);
	const darkSoft = mix(accent, '#121216', 0.78);
	return {
		accent,
		onAccent: textOn(accent),
		light: { accentStrong: readableOn(accent, [...LIGHT_BACKGROUNDS, lightSoft], '#000000'), accentSoft: lightSoft },
		dark: { accentStrong: readableOn(accent, [...DARK_BACKGROUNDS, darkSoft], '#ffffff'), accentSoft: darkSoft }
	};
}

/** CSS appended to src/app.css at build time: the accent tokens of PUBLIC_ACCENT_COLOR. */
export function accentCss(accent: string): string {
	const t = accentTokens(accent);
	return (
		`\n:root{--accent:${t.accent};--on-accent:${t.onAccent};--accent-strong:${t.light.accentStrong};--accent-soft:${t.light.accentSoft}}` +
		`\n@media (prefers-color-scheme: dark){:root{--accent-strong:${t.dark.accentStrong};--accent-soft:${t.dark.accentSoft}}}\n`
	);
}

/**
 * The accent tokens of a saved accent (`/admin/settings`) as a style sheet for the page's head: `html:root`
 * outweighs the build's `:root` rules in src/app.css wherever the two stand. Only `#rrggbb` reaches here.
 */
export function savedAccentCss(accent: string): string {
	const t = accentTokens(accent);
	return (
		`html:root{--accent:${t.accent};--on-accent:${t.onAccent};--accent-strong:${t.light.accentStrong};--accent-soft:${t.light.accentSoft}}` +
		`@media (prefers-color-scheme: dark){html:root{--accent-strong:${t.dark.accentStrong};--accent-soft:${t.dark.accentSoft}}}`
	);
}

function escapeXml(value: string): string {
	return value.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The default logo: the name's first letter on the accent colour, as an SVG document. */
export function monogramSvg(name: string, accent: string): string {
	const initial = escapeXml(([...name.trim()][0] ?? 'M').toUpperCase());
	return (
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">` +
		`<rect width="64" height="64" rx="14" fill="${accent}"/>` +
		`<text x="32" y="44" text-anchor="middle" font-family="system-ui,sans-serif" font-size="34" font-weight="700" fill="${textOn(accent)}">${initial}</text>` +
		`</svg>`
	);
}
