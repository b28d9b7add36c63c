import { json } from '@sveltejs/kit';
import { safeAppManifest } from '$lib/branding/branding';
import { community } from '$lib/branding/community';

// The Safe App manifest (docs/sign-in.md "Inside Safe{Wallet}"), written once at build time from the
// branding. Safe{Wallet} reads it from its own origin: the servers add Access-Control-Allow-Origin: *.
export const prerender = true;

export const GET = () => json(safeAppManifest(community));
