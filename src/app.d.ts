import type { SignedInMember } from '$lib/server/auth/guards';
import type { SessionData } from '$lib/server/auth/session';
import type { Branding } from '$lib/branding/branding';

declare global {
	/** The build's branding, embedded by vite.config.ts. */
	const __BRANDING__: Branding;
	/** The portal's version and git commit, embedded by vite.config.ts (scripts/portal-version.js). */
	const __PORTAL_VERSION__: string;

	namespace App {
		interface Error {
			message: string;
			code?: string;
		}
		interface Locals {
			/** The unsealed session cookie, or null when there is none or it is not valid. */
			session: SessionData | null;
			/** The signed-in member, or null. Read it through requireMember() / requireAdmin(). */
			member: SignedInMember | null;
			/** This request's id: the x-request-id answer header and every log line about it. */
			requestId?: string;
		}
	}
}

export {};
