import { dev } from '$app/environment';
import { inbox_push_denied } from '$lib/paraglide/messages/inbox_push_denied.js';
import { inbox_push_refused } from '$lib/paraglide/messages/inbox_push_refused.js';

/**
 * This browser's Web Push subscription (docs/notifications.md): registers the portal's service worker
 * only when the member turns push on, subscribes with the server's VAPID key and hands the
 * subscription to POST /api/push/subscriptions; "Stop" unsubscribes and tells DELETE.
 */
export const pushSupported = () =>
	typeof navigator !== 'undefined' && 'serviceWorker' in navigator && typeof PushManager !== 'undefined';

/** The subscription this browser holds for the portal, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
	const registration = await navigator.serviceWorker.getRegistration('/');
	return (await registration?.pushManager.getSubscription()) ?? null;
}

const keyBytes = (base64url: string) =>
	Uint8Array.from(atob(base64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/**
 * Asks the browser (which asks the member) and saves the subscription; the reason in words when it cannot.
 * An endpoint the server keeps for another member (409: someone else signed in on this browser before)
 * is given up, and the browser asked once for a new one.
 */
export async function subscribe(vapidPublicKey: string, again = true): Promise<string | null> {
	if ((await Notification.requestPermission()) !== 'granted') return inbox_push_denied();
	const registration = await navigator.serviceWorker.register('/service-worker.js', {
		type: dev ? 'module' : 'classic',
		scope: '/'
	});
	await navigator.serviceWorker.ready;
	const subscription = await registration.pushManager.subscribe({
		userVisibleOnly: true,
		applicationServerKey: keyBytes(vapidPublicKey)
	});
	const response = await fetch('/api/push/subscriptions', {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(subscription.toJSON())
	});
	if (response.status === 201) return null;
	await subscription.unsubscribe();
	if (response.status === 409 && again) return subscribe(vapidPublicKey, false);
	const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
	return body?.error?.message ?? inbox_push_refused({ status: response.status });
}

/** Stops push in this browser: the server forgets it, then the browser unsubscribes. */
export async function unsubscribe(): Promise<void> {
	const subscription = await currentSubscription();
	if (!subscription) return;
	await fetch('/api/push/subscriptions', {
		method: 'DELETE',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ endpoint: subscription.endpoint })
	});
	await subscription.unsubscribe();
}
