import { eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DatabaseHandle } from '../../src/lib/server/db/client';
import { applicationVotes, webhookDeliveries } from '../../src/lib/server/db/schema';
import { tallyFor } from '../../src/lib/server/reviews/tally';
import { requireServerUrl, serverUrl } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { Receiver, newSecret, verified } from '../helpers/receiver';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// Three server processes on one Postgres database, five reviewers voting at the same moment on one
// application, each through a process of its own choosing: every vote kept, the counts right.
describe.runIf(serverUrl)('five reviewers voting at once through three processes', () => {
	const admin = testAccount('admin');
	const reviewers = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()));
	const secret = newSecret();
	let database: ServerDatabase;
	let direct: DatabaseHandle;
	let hook: Receiver;
	const servers: RunningServer[] = [];
	beforeAll(async () => {
		database = await createServerDatabase(requireServerUrl(), { prefix: 'portal_votes3', migrate: true });
		direct = createDb({ databaseUrl: database.url, pgliteDataDir: '' }, { max: 2 });
		hook = await new Receiver().start();
		const env = {
			DATABASE_URL: database.url,
			ADMIN_ADDRESSES: admin.address,
			REVIEWER_ADDRESSES: reviewers.map((r) => r.address).join(','),
			WEBHOOK_URLS: hook.url,
			WEBHOOK_SECRET: secret
		};
		servers.push(...(await Promise.all([0, 1, 2].map(() => startServer({ env })))));
	}, 120_000);
	afterAll(async () => {
		await Promise.all(servers.map((s) => s.stop()));
		await hook?.stop();
		await direct?.close();
		await database?.drop();
	});

	it('every vote is kept and the counts are right, in the table and in the last webhook', async () => {
		const applicant = privateKeyToAccount(generatePrivateKey());
		const applicantCookie = await signIn(servers[0]!.url, applicant);
		expect(
			(
				await postForm(
					`${servers[0]!.url}/apply`,
					{ displayName: 'Crowd', motivation: 'Many eyes' },
					{ cookie: applicantCookie }
				)
			).status
		).toBe(303);
		const adminCookie = await signIn(servers[1]!.url, admin);
		const table = await getPage(`${servers[1]!.url}/admin?q=${applicant.address}`, adminCookie);
		const id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(table.body)![1]!;
		const sessions = await Promise.all(
			reviewers.map(async (r, i) => {
				const server = servers[i % 3]!;
				return { server, cookie: await signIn(server.url, r) };
			})
		);
		const choices = ['approve', 'approve', 'reject', 'abstain', 'approve'];
		const answers = await Promise.all(
			sessions.map(({ server, cookie }, i) =>
				postForm(
					`${server.url}/review/${id}?/vote`,
					{ vote: choices[i]!, comment: choices[i] === 'reject' ? 'No' : '' },
					{ cookie }
				)
			)
		);
		expect(answers.map((a) => a.status)).toEqual([303, 303, 303, 303, 303]);
		const rows = await direct.db.select().from(applicationVotes).where(eq(applicationVotes.applicationId, id));
		expect(rows).toHaveLength(5);
		expect(new Set(rows.map((r) => r.reviewerAddress)).size).toBe(5);
		expect(await tallyFor(direct.db, id)).toEqual({ approve: 3, reject: 1, abstain: 1, meanScore: null });
		expect(textCounts((await getPage(`${servers[2]!.url}/admin?votes=ready&q=Crowd`, adminCookie)).body)).toBe(
			'3 approve 1 reject 1 abstain Ready —'
		);
		// Each vote's webhook counts every vote committed before it: one of them saw all five.
		const voted = () => hook.received.map((r) => verified(secret, r)).filter((e) => e.type === 'application.voted');
		await hook.until(() => voted().length >= 5, 20_000);
		const counts = voted().map((e) => e.data.counts as Record<string, number>);
		const totals = counts.map((c) => c.approve! + c.reject! + c.abstain!).sort((a, b) => a - b);
		expect(totals).toEqual([1, 2, 3, 4, 5]);
		const outbox = await direct.db.select().from(webhookDeliveries);
		expect(outbox.filter((d) => d.eventType === 'application.voted')).toHaveLength(5);
		for (const d of outbox) expect(JSON.stringify(d.data)).not.toContain('"comment"');
	}, 120_000);
});

/** The votes (in words, "Ready" at the quorum) and mean cells of the table's only row. */
const textCounts = (html: string) =>
	/ (\d+ approve\s*\d+ reject\s*\d+ abstain\s*Ready\s*\S+) /.exec(textOf(html))?.[1]?.replace(/\s+/g, ' ');
