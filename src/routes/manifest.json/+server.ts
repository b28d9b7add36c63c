import { json } from '@sveltejs/kit';
import { safeAppManifest } from '$lib/branding/branding';
import { baseLocale } from '$lib/i18n/locales';
import { communityIn } from '$lib/server/branding/current';

// The Safe App manifest (docs/sign-in.md "Inside Safe{Wallet}"): the community's name, description and
// logo as saved (/admin/settings), else the build's. Safe{Wallet} reads it from its own origin: the servers
// add Access-Control-Allow-Origin: *.
export const GET = async () =>
	json(safeAppManifest(await communityIn(baseLocale)), {
		headers: { 'cache-control': 'no-cache' }
	});
