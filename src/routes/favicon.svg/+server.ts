import { monogramSvg } from '$lib/branding/branding';
import { community } from '$lib/branding/community';

// Written once at build time: the default logo, the name's initial on the accent colour.
export const prerender = true;

export const GET = () =>
	new Response(monogramSvg(community.name, community.accent), {
		headers: { 'content-type': 'image/svg+xml' }
	});
