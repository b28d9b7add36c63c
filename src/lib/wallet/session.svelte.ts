/**
 * Who is signed in, as the browser knows it: learned only from GET /api/auth/me (the layout stays
 * static), changed by a successful sign-in and by POST /api/auth/logout; with it, the member's count
 * of unread notifications. No wallet code here, so every page can import it.
 */

export interface Me {
	address: string | null;
	isAdmin: boolean;
	/** A reviewer who is not an admin (GET /api/auth/me says so only then). */
	isReviewer?: boolean;
}

class AuthSession {
	address = $state.raw<string | null>(null);
	isAdmin = $state.raw(false);
	/** May open /review (a reviewer or an admin): the header's link only, the server guards the pages. */
	isReviewer = $state.raw(false);
	/** False until the first answer from /api/auth/me, so the header does not flash "Sign in". */
	known = $state.raw(false);
	/** Why the browser signed the member out, shown once in the header. */
	notice = $state.raw<string | null>(null);
	/** The header's count of unread notifications (GET /api/notifications/unread); null while unknown or signed out. */
	unread = $state.raw<number | null>(null);

	#changes = 0;

	set(me: Me) {
		this.#changes++;
		this.address = me.address;
		this.isAdmin = me.address ? me.isAdmin : false;
		this.isReviewer = me.address ? me.isAdmin || me.isReviewer === true : false;
		this.known = true;
	}

	async refresh(): Promise<void> {
		const before = this.#changes;
		try {
			const response = await fetch('/api/auth/me', { headers: { accept: 'application/json' }, cache: 'no-store' });
			if (!response.ok) throw new Error(`HTTP ${response.status}`);
			const body = (await response.json()) as Partial<Me>;
			// A sign-in or sign-out that finished meanwhile is newer than this answer.
			if (this.#changes !== before) return;
			this.set({
				address: typeof body.address === 'string' ? body.address : null,
				isAdmin: body.isAdmin === true,
				isReviewer: body.isReviewer === true
			});
			// The unread count follows each check (the inbox marks them read, a push may bring new ones).
			const unread = this.address
				? ((await (await fetch('/api/notifications/unread', { cache: 'no-store' })).json().catch(() => null)) as {
						unread?: unknown;
					} | null)
				: null;
			this.unread = typeof unread?.unread === 'number' ? unread.unread : null;
		} catch {
			// Offline or the server is away: keep what we knew (the server still guards every page).
			this.known = true;
		}
	}

	/** POST /api/auth/logout; `reason` is shown to the member when the browser decided it. */
	async signOut(reason: string | null = null): Promise<void> {
		try {
			await fetch('/api/auth/logout', { method: 'POST', cache: 'no-store' });
		} catch {
			// The cookie may survive an unreachable server; forget the member here anyway.
		}
		this.set({ address: null, isAdmin: false });
		this.unread = null;
		this.notice = reason;
	}
}

export const session = new AuthSession();
