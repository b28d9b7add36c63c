/// <reference no-default-lib="true"/>
/// <reference lib="esnext" />
/// <reference lib="webworker" />
// Shows the portal's push notifications (docs/notifications.md) and opens their page on click. It
// caches nothing and answers no fetch: every page stays as the server renders it.
import { splitLocalePath } from '$lib/i18n/locales';
import { notify_changed_title } from '$lib/paraglide/messages/notify_changed_title.js';

const sw = self as unknown as ServiceWorkerGlobalScope;

interface PushPayload {
	title?: unknown;
	body?: unknown;
	url?: unknown;
}

/** Only a path of this portal is opened, whatever the payload says. */
const pageOf = (url: unknown) => (typeof url === 'string' && /^\/(?![/\\])/.test(url) ? url : '/inbox');

sw.addEventListener('push', (event) => {
	let payload: PushPayload = {};
	try {
		payload = (event.data?.json() ?? {}) as PushPayload;
	} catch {
		// Not JSON: shown with the default words below.
	}
	// The server writes the title in the recipient's language; without one, the words are in the language of the page to open.
	const url = pageOf(payload.url);
	const title =
		typeof payload.title === 'string'
			? payload.title
			: notify_changed_title({}, { locale: splitLocalePath(url.split(/[?#]/, 1)[0]!).locale });
	event.waitUntil(
		sw.registration.showNotification(title, {
			body: typeof payload.body === 'string' ? payload.body : '',
			data: { url },
			icon: '/favicon.svg'
		})
	);
});

sw.addEventListener('notificationclick', (event) => {
	event.notification.close();
	const target = new URL(pageOf((event.notification.data as { url?: unknown } | null)?.url), sw.location.origin).href;
	event.waitUntil(
		(async () => {
			const open = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
			const same = open.find((c) => c.url === target);
			if (same) return void (await same.focus());
			await sw.clients.openWindow(target);
		})()
	);
});
