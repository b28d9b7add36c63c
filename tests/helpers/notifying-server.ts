// What applicants are told by (docs/notifications.md) on loopback, and a built server that tells them:
// a Web Push service that checks VAPID and decrypts, a local SMTP server, and webhook receivers (a
// working one, one that answers garbage); members signed in with fresh wallets, subscribed, applying.
// Shared by tests/http/notifications*.test.ts, member-holes, poisoned-rows and the fuzz.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import postgres from 'postgres';
import webpush from 'web-push';
import { expect } from 'vitest';
import { getPage, postForm } from './forms';
import { MailCatcher } from './mail-catcher';
import { createServerDatabase } from './postgres.js';
import { PushService } from './push-service';
import { Receiver, garbageReceiver, newSecret } from './receiver';
import { startServer, type RunningServer } from './server';
import { signIn } from './siwe';

export const VAPID_SUBJECT = 'mailto:portal@example.test';

/** Issue 54's push key: 65 bytes once decoded (web-push's length check passes), and no point of P-256. */
export const NOT_A_POINT = 'A'.repeat(87);
/** The address whose mail the SMTP server cuts in the middle of DATA (`startChannels({ dropMailTo })`). */
export const POISON_MAIL = 'dropped@example.test';
/** What a delivery whose push sender threw records (issue 54). */
export const THREW = 'the sender failed (ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY)';

export interface Channels {
	/** The server's environment for them: VAPID, the push origin, SMTP, and WEBHOOK_URLS when there are receivers. */
	env: Record<string, string>;
	push: PushService;
	mail: MailCatcher;
	/** A webhook receiver that answers 204 (with `webhooks` including 'working'). */
	receiver?: Receiver;
	/** A webhook receiver that answers bytes that are not HTTP (with `webhooks` including 'garbage'). */
	garbage?: Awaited<ReturnType<typeof garbageReceiver>>;
	stop(): Promise<void>;
}

/** Starts the loopback push service and SMTP server, and the webhook receivers asked for. */
export async function startChannels(
	options: { webhooks?: readonly ('working' | 'garbage')[]; dropMailTo?: string } = {}
): Promise<Channels> {
	const vapid = webpush.generateVAPIDKeys();
	const push = await new PushService(vapid.publicKey, VAPID_SUBJECT).start();
	const mail = await new MailCatcher().start();
	if (options.dropMailTo) mail.dropTo = options.dropMailTo;
	const webhooks = options.webhooks ?? [];
	const receiver = webhooks.includes('working') ? await new Receiver().start() : undefined;
	const garbage = webhooks.includes('garbage') ? await garbageReceiver() : undefined;
	const urls = [receiver?.url, garbage?.url].filter((u): u is string => !!u);
	return {
		env: {
			VAPID_PUBLIC_KEY: vapid.publicKey,
			VAPID_PRIVATE_KEY: vapid.privateKey,
			VAPID_SUBJECT,
			PUSH_SERVICE_ORIGINS: push.url,
			SMTP_URL: mail.url,
			MAIL_FROM: 'Portal <portal@example.test>',
			...(urls.length ? { WEBHOOK_URLS: urls.join(','), WEBHOOK_SECRET: newSecret() } : {})
		},
		push,
		mail,
		receiver,
		garbage,
		async stop() {
			await Promise.all([push.stop(), mail.stop(), receiver?.stop(), garbage?.stop()]);
		}
	};
}

/** The community's name as the built server's home page says it (its branding: every mail names it). */
export async function communityName(base: string): Promise<string> {
	const page = await getPage(`${base}/`);
	const name = /<h1 id="welcome"[^>]*><bdi>([^<]*)<\/bdi><\/h1>/.exec(page.body)![1]!;
	const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
	return name.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]!);
}

/** A member signed in with a fresh wallet. */
export interface Member {
	account: PrivateKeyAccount;
	/** The address, lower-case as the database keeps it. */
	address: string;
	cookie: string;
}

export async function signedInMember(base: string): Promise<Member> {
	const account = privateKeyToAccount(generatePrivateKey());
	return { account, address: account.address.toLowerCase(), cookie: await signIn(base, account) };
}

/**
 * POST /api/push/subscriptions as `cookie` of a new subscription of the push service at `path`, with its
 * keys or `keys` instead.
 */
export function subscribe(
	base: string,
	push: PushService,
	path: string,
	cookie: string,
	keys?: { p256dh: string; auth: string }
): Promise<Response> {
	const sub = push.subscription(path);
	return fetch(`${base}/api/push/subscriptions`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie },
		body: JSON.stringify({ endpoint: sub.endpoint, keys: keys ?? sub.keys })
	});
}

export interface NotifyingServer extends Channels {
	server: RunningServer;
	url: string;
	admin: PrivateKeyAccount;
	adminCookie: string;
	/** A client of the server's database (with `sql`, on Postgres only). */
	sql?: postgres.Sql;
	member(): Promise<Member>;
	subscribe(path: string, cookie: string, keys?: { p256dh: string; auth: string }): Promise<Response>;
	/** `member` applies (303) under `prefix`; the application's id, as the admin's table links it. */
	apply(member: Member, fields?: Record<string, string>, prefix?: string): Promise<string>;
	/** The admin moves the application's review state to `to`. */
	move(applicationId: string, to: string, reason?: string, prefix?: string): ReturnType<typeof postForm>;
}

/**
 * The built server with every channel on, an admin signed in, on `engine` (tests/helpers/db.ts `engines`):
 * a database of its own named by `prefix` on the Postgres server, else PGlite in memory.
 */
export async function startNotifyingServer(
	engine: string,
	prefix: string,
	options: { sql?: boolean; webhooks?: readonly ('working' | 'garbage')[]; dropMailTo?: string } = {}
): Promise<NotifyingServer> {
	const channels = await startChannels(options);
	const admin = privateKeyToAccount(generatePrivateKey());
	const env: Record<string, string> = { ADMIN_ADDRESSES: admin.address, ...channels.env };
	let sql: postgres.Sql | undefined;
	let drop: (() => Promise<void>) | undefined;
	if (engine === 'postgres') {
		const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, { prefix, migrate: true });
		env.DATABASE_URL = database.url;
		drop = database.drop;
		if (options.sql) sql = postgres(database.url, { max: 1, onnotice: () => {} });
	}
	const server = await startServer({ env });
	const base = server.url;
	const adminCookie = await signIn(base, admin);
	return {
		...channels,
		server,
		url: base,
		admin,
		adminCookie,
		sql,
		member: () => signedInMember(base),
		subscribe: (path, cookie, keys) => subscribe(base, channels.push, path, cookie, keys),
		async apply(member, fields = { displayName: 'Nia Notify', motivation: 'Notify me' }, at = '') {
			expect((await postForm(`${base}${at}/apply`, fields, { cookie: member.cookie })).status).toBe(303);
			const page = await getPage(`${base}/admin?q=${member.address}`, adminCookie);
			return /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
		},
		move: (applicationId, to, reason = '', at = '') =>
			postForm(
				`${base}${at}/admin?/transition`,
				{ applicationId, field: 'review', to, reason },
				{ cookie: adminCookie }
			),
		async stop() {
			await sql?.end();
			await server.stop();
			await channels.stop();
			await drop?.();
		}
	};
}
