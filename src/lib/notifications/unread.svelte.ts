/** The header's count of unread notifications: GET /api/notifications/unread, asked after each session check. */
class UnreadCount {
	/** Null while unknown or signed out: the header shows no count. */
	count = $state.raw<number | null>(null);

	async refresh(signedIn: boolean): Promise<void> {
		if (!signedIn) {
			this.count = null;
			return;
		}
		try {
			const response = await fetch('/api/notifications/unread', { cache: 'no-store' });
			const body = response.ok ? ((await response.json()) as { unread?: unknown }) : null;
			this.count = typeof body?.unread === 'number' ? body.unread : null;
		} catch {
			// Offline: keep what was known.
		}
	}
}

export const unread = new UnreadCount();
