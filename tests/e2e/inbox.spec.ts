import webpush from 'web-push';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getPage, postForm } from '../helpers/forms';
import { MailCatcher } from '../helpers/mail-catcher';
import { PushService } from '../helpers/push-service';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, header, PHONE, screenshots, startPortal, test } from './fixtures';

// An applicant's inbox in Chromium, by keyboard: the unread count in the header, marking read, and
// turning on push in this browser. Only PushManager.subscribe is stubbed (it would call Google's
// push service); the service worker registers for real and the subscription reaches the server,
// which then pushes to a loopback push service that checks VAPID and decrypts.
const vapid = webpush.generateVAPIDKeys();
let server: RunningServer;
let push: PushService;
let mail: MailCatcher;

test.beforeAll(async () => {
	// The built server starts in over a minute on the shared host.
	test.setTimeout(200_000);
	push = await new PushService(vapid.publicKey, 'mailto:e2e@example.test').start();
	mail = await new MailCatcher().start();
	server = await startPortal({
		ADMIN_ADDRESSES: admin.address,
		VAPID_PUBLIC_KEY: vapid.publicKey,
		VAPID_PRIVATE_KEY: vapid.privateKey,
		VAPID_SUBJECT: 'mailto:e2e@example.test',
		PUSH_SERVICE_ORIGINS: push.url,
		SMTP_URL: mail.url,
		MAIL_FROM: 'Portal <portal@example.test>'
	});
});
test.afterAll(async () => {
	await server?.stop();
	await push?.stop();
	await mail?.stop();
});

test('a member reads the inbox by keyboard, sees the count, and turns on push in this browser', async ({
	browser
}, testInfo) => {
	test.setTimeout(180_000);
	const applicant = privateKeyToAccount(generatePrivateKey());
	const cookie = await signIn(server.url, applicant);
	const adminCookie = await signIn(server.url, admin);
	expect(
		(await postForm(`${server.url}/apply`, { displayName: 'Ines Inbox', motivation: 'Tell me' }, { cookie })).status
	).toBe(303);
	const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(
		(await getPage(`${server.url}/admin?q=${applicant.address}`, adminCookie)).body
	)![1]!;
	const move = (to: string, reason = '') =>
		postForm(
			`${server.url}/admin?/transition`,
			{ applicationId: id, field: 'review', to, reason },
			{ cookie: adminCookie }
		);
	expect((await move('needs_info', 'Please add a link to your work.')).status).toBe(303);

	const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	await context.grantPermissions(['notifications'], { origin: server.url });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	const sub = push.subscription('/e2e/browser');
	await context.addInitScript(
		({ endpoint, keys }) => {
			// The browser's own push registration would reach a real push service: answer it here.
			let subscribed: PushSubscription | null = null;
			const fake = {
				endpoint,
				toJSON: () => ({ endpoint, expirationTime: null, keys }),
				unsubscribe: () => ((subscribed = null), Promise.resolve(true))
			} as unknown as PushSubscription;
			PushManager.prototype.subscribe = () => Promise.resolve((subscribed = fake));
			PushManager.prototype.getSubscription = () => Promise.resolve(subscribed);
		},
		{ endpoint: sub.endpoint, keys: sub.keys }
	);
	const page = await context.newPage();
	await page.goto(`${server.url}/inbox`);
	await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
	await expect(header(page).getByRole('link', { name: 'Inbox 2 unread' })).toBeVisible();
	await expect(page.getByRole('heading', { name: /The reviewers ask for more information/ })).toBeVisible();
	await screenshots(page, testInfo, 'inbox');

	// Keyboard only: to the first "Mark as read" (the newest), Enter.
	const first = page.getByRole('button', { name: /^Mark as read\s*: The reviewers ask/ });
	for (let i = 0; i < 60 && !(await first.evaluate((el) => el === document.activeElement)); i++)
		await page.keyboard.press('Tab');
	await expect(first).toBeFocused();
	await page.keyboard.press('Enter');
	await expect(header(page).getByRole('link', { name: 'Inbox 1 unread' })).toBeVisible();
	await expect(first).toHaveCount(0);

	const notify = page.getByRole('button', { name: 'Notify me in this browser' });
	for (let i = 0; i < 60 && !(await notify.evaluate((el) => el === document.activeElement)); i++)
		await page.keyboard.press('Tab');
	await expect(notify).toBeFocused();
	await page.keyboard.press('Enter');
	await expect(page.getByText('Notifications are on in this browser.')).toBeVisible();

	// The next change reaches this browser's subscription, encrypted for its keys. Only the applicant
	// takes needs_info back to pending (the transitions table: byApplicant), by sending the changes.
	expect(
		(
			await postForm(
				`${server.url}/apply`,
				{ displayName: 'Ines Inbox', motivation: 'Tell me: https://example.org/my-work' },
				{ cookie }
			)
		).status
	).toBe(303);
	await push.until((p) => p.some((x) => x.path === '/e2e/browser'));
	expect(push.pushed.find((x) => x.path === '/e2e/browser')!.payload.title).toBe('We received your changes');

	// On a phone in Spanish the header's row of links is wider than the screen and scrolls on its own: the
	// count's visually hidden words stay inside it, and the page itself never scrolls sideways.
	await page.setViewportSize(PHONE);
	await page.goto(`${server.url}/es/inbox`);
	await expect(header(page).locator('.count')).toBeVisible();
	expect(
		await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
	).toBeLessThanOrEqual(0);
	await context.close();
});
