import { asc, eq, sql } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DatabaseHandle } from '../../src/lib/server/db/client';
import { applicationNotes, webhookDeliveries } from '../../src/lib/server/db/schema';
import { engines } from '../helpers/db';
import { getPage, postForm } from '../helpers/forms';
import { createServerDatabase } from '../helpers/postgres.js';
import { Receiver, newSecret, verified } from '../helpers/receiver';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// A reviewer note through the application page's form (`?/note`) reaches a webhook receiver as
// `application.note_added`, signed (Standard Webhooks), without the note's text; a refused note sends nothing.
const admin = testAccount('admin');
const secret = newSecret();

describe.each(engines)('application.note_added from the note form on %s', (engine) => {
	let server: RunningServer;
	let hook: Receiver;
	let direct: DatabaseHandle | undefined;
	let drop: (() => Promise<void>) | undefined;
	beforeAll(async () => {
		hook = await new Receiver().start();
		const env: Record<string, string> = {
			ADMIN_ADDRESSES: admin.address,
			WEBHOOK_URLS: hook.url,
			WEBHOOK_SECRET: secret
		};
		if (engine === 'postgres') {
			const database = await createServerDatabase(process.env.TEST_DATABASE_URL!, { prefix: 'portal_notehook' });
			env.DATABASE_URL = database.url;
			direct = createDb({ databaseUrl: database.url, pgliteDataDir: '' }, { max: 2 });
			drop = database.drop;
		}
		server = await startServer({ env });
	});
	afterAll(async () => {
		await Promise.all([server?.stop(), hook?.stop()]);
		await direct?.close();
		await drop?.();
	});

	const notesAbout = (id: string) =>
		hook.received.filter((r) => {
			const event = verified(secret, r);
			return event.type === 'application.note_added' && event.data.applicationId === id;
		});

	it('arrives signed, names the application and the author, never the text; refused notes send nothing', async () => {
		const base = server.url;
		const member = privateKeyToAccount(generatePrivateKey());
		const memberCookie = await signIn(base, member);
		expect(
			(await postForm(`${base}/apply`, { displayName: 'Nora', motivation: 'Notes' }, { cookie: memberCookie })).status
		).toBe(303);
		const cookie = await signIn(base, admin);
		const table = await getPage(`${base}/admin?sort=newest&q=${member.address}`, cookie);
		const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(table.body)![1]!;

		const text = 'Private: spoke with Nora on the forum';
		const before = Date.now();
		expect((await postForm(`${base}/admin/applications/${id}?/note`, { body: text }, { cookie })).status).toBe(303);
		const [request] = await hook.until(() => notesAbout(id).length >= 1).then(() => notesAbout(id));

		// standardwebhooks verifies the signature over exactly this body, and refuses it over any other.
		const event = verified(secret, request!);
		expect(event).toEqual({
			type: 'application.note_added',
			timestamp: expect.any(String) as string,
			data: {
				applicationId: id,
				program: { slug: 'membership', name: 'Member portal' },
				round: { id: expect.any(Number) as number, name: 'Open' },
				noteId: expect.stringMatching(/^\d+$/) as string,
				author: admin.address.toLowerCase(),
				createdAt: expect.any(String) as string
			}
		});
		expect(Date.parse(event.data.createdAt as string)).toBeGreaterThanOrEqual(before - 5_000);
		expect(request!.headers['webhook-id']).toMatch(/\S/);
		const otherId = id.slice(0, -1) + (id.endsWith('0') ? '1' : '0');
		expect(request!.body).toContain(id);
		expect(() => verified(secret, { ...request!, body: request!.body.replace(id, otherId) })).toThrow();
		expect(() => verified(newSecret(), request!)).toThrow();
		expect(request!.body).not.toContain('Private');

		// Refused notes (empty, 2001 characters) and a member's post (404) write no outbox row.
		for (const body of ['', 'x'.repeat(2001)])
			expect((await postForm(`${base}/admin/applications/${id}?/note`, { body }, { cookie })).status).toBe(400);
		expect(
			(await postForm(`${base}/admin/applications/${id}?/note`, { body: 'sneaky' }, { cookie: memberCookie })).status
		).toBe(404);
		// A later note arrives; nothing came for the refused ones in between.
		expect((await postForm(`${base}/admin/applications/${id}?/note`, { body: 'Second' }, { cookie })).status).toBe(303);
		await hook.until(() => notesAbout(id).length >= 2);
		await new Promise((r) => setTimeout(r, 1_000));
		const ids = notesAbout(id).map((r) => verified(secret, r).data.noteId as string);
		expect(new Set(ids).size).toBe(2);
		expect(ids).toHaveLength(2);
		if (direct) {
			const notes = await direct.db
				.select({ id: applicationNotes.id })
				.from(applicationNotes)
				.where(eq(applicationNotes.applicationId, id))
				.orderBy(asc(applicationNotes.id));
			expect([...ids].sort()).toEqual(notes.map((n) => String(n.id)).sort());
			const outbox = await direct.db
				.select({ id: webhookDeliveries.id })
				.from(webhookDeliveries)
				.where(
					sql`${webhookDeliveries.eventType} = 'application.note_added' and ${webhookDeliveries.data}->>'applicationId' = ${id}`
				);
			expect(outbox).toHaveLength(2);
		}
	});
});
