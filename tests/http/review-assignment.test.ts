import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, requireServerUrl, serverUrl } from '../helpers/db';
import { getPage, postForm, textOf } from '../helpers/forms';
import { createServerDatabase, type ServerDatabase } from '../helpers/postgres.js';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

// A fair review (decision 0040) through real HTTP on the built server, without JavaScript.
const admin = testAccount('admin');
const newAccount = () => privateKeyToAccount(generatePrivateKey());
const lower = (a: PrivateKeyAccount) => a.address.toLowerCase();

describe.each(engines)('reviewers managed in the portal on %s', (engine) => {
	let server: RunningServer;
	let base: string;
	let drop: (() => Promise<void>) | undefined;
	let adminCookie: string;
	const configured = newAccount();
	const portal = [newAccount(), newAccount(), newAccount()];
	const cookies = new Map<PrivateKeyAccount, string>();
	beforeAll(async () => {
		const env: Record<string, string> = { ADMIN_ADDRESSES: admin.address, REVIEWER_ADDRESSES: configured.address };
		if (engine === 'postgres') {
			const database = await createServerDatabase(requireServerUrl(), { prefix: 'portal_assign', migrate: true });
			env.DATABASE_URL = database.url;
			drop = database.drop;
		}
		server = await startServer({ env });
		base = server.url;
		adminCookie = await signIn(base, admin);
		for (const r of [configured, ...portal]) cookies.set(r, await signIn(base, r));
	}, 120_000);
	afterAll(async () => {
		await server?.stop();
		await drop?.();
	});

	const post = (path: string, fields: Record<string, string>, cookie = adminCookie) =>
		postForm(`${base}${path}`, fields, { cookie });
	const apply = async (account: PrivateKeyAccount, displayName: string) => {
		const cookie = await signIn(base, account);
		expect((await postForm(`${base}/apply`, { displayName, motivation: 'Because' }, { cookie })).status).toBe(303);
		const page = await getPage(`${base}/admin?sort=newest&q=${account.address}`, adminCookie);
		return /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
	};
	/** The addresses listed under "Assigned reviewers" on the application's admin page. */
	const assignedOn = async (id: string) => {
		const body = (await getPage(`${base}/admin/applications/${id}`, adminCookie)).body;
		const section = /id="reviewers"[\s\S]*?<\/section>/.exec(body)?.[0] ?? '';
		const list = section.split('Conflicts of interest')[0]!.split('Assign a reviewer')[0]!;
		// Each reviewer is named by Person: display name and short address, the whole address in its title.
		return [...list.matchAll(/<code[^>]*\btitle="(0x[0-9a-f]{40})"/g)].map((m) => m[1]!).sort();
	};

	it('adds and removes reviewers: /review opens and hides at once; configured ones are listed, not removable', async () => {
		const [r] = portal;
		expect((await getPage(`${base}/review`, cookies.get(r!))).status).toBe(404);
		for (const bad of ['', 'nope', '0x123', `${lower(r!)}0`])
			expect((await post('/admin/reviewers?/add', { address: bad })).status).toBe(400);
		expect((await post('/admin/reviewers?/add', { address: r!.address })).status).toBe(303);
		expect((await getPage(`${base}/review`, cookies.get(r!))).status).toBe(200);
		const page = textOf((await getPage(`${base}/admin/reviewers`, adminCookie)).body);
		expect(page).toContain(lower(configured));
		expect(page).toContain('From configuration');
		expect(page).toContain(lower(r!));
		expect((await post('/admin/reviewers?/remove', { address: configured.address })).status).toBe(409);
		expect((await getPage(`${base}/review`, cookies.get(configured))).status).toBe(200);
		expect((await post('/admin/reviewers?/remove', { address: r!.address })).status).toBe(303);
		expect((await getPage(`${base}/review`, cookies.get(r!))).status).toBe(404);
		expect((await post('/admin/reviewers?/remove', { address: r!.address })).status).toBe(404);
		// Not an admin: the unknown path's answer.
		expect((await getPage(`${base}/admin/reviewers`, cookies.get(configured))).status).toBe(404);
		expect((await post('/admin/reviewers?/add', { address: r!.address }, cookies.get(configured))).status).toBe(404);
	});

	it('two per application: exact counts, never the applicant, spread evenly, "Assigned to you" first', async () => {
		for (const r of portal) expect((await post('/admin/reviewers?/add', { address: r.address })).status).toBe(303);
		for (const bad of ['11', '-1', 'x', '2.5', ''])
			expect((await post('/admin/reviewers?/settings', { perApplication: bad })).status).toBe(400);
		expect((await post('/admin/reviewers?/settings', { perApplication: '2' })).status).toBe(303);
		// Four reviewers (one configured, three added), two applications each from the portal reviewers themselves.
		const ids = [await apply(portal[0]!, 'Own Olga'), await apply(newAccount(), 'Even Eve')];
		const counts = new Map<string, number>();
		for (const id of ids) {
			const assigned = await assignedOn(id);
			expect(assigned).toHaveLength(2);
			for (const a of assigned) counts.set(a, (counts.get(a) ?? 0) + 1);
		}
		expect(await assignedOn(ids[0]!)).not.toContain(lower(portal[0]!));
		// Four assignments over four reviewers: one each.
		expect([...counts.values()]).toEqual([1, 1, 1, 1]);
		const [reviewer] = await assignedOn(ids[1]!);
		const account = [configured, ...portal].find((a) => lower(a) === reviewer)!;
		const queue = textOf((await getPage(`${base}/review`, cookies.get(account))).body);
		expect(queue).toContain('Assigned to you');
		expect(queue.indexOf('Even Eve')).toBeGreaterThan(queue.indexOf('Assigned to you'));
		expect(queue.indexOf('Even Eve')).toBeLessThan(queue.indexOf('Other applications'));
		// The admin table shows the assignments, and /admin/reviewers the open ones.
		expect((await getPage(`${base}/admin?q=Even`, adminCookie)).body).toContain(`title="${reviewer}"`);
		const workload = textOf((await getPage(`${base}/admin/reviewers`, adminCookie)).body);
		expect(workload).toMatch(new RegExp(`${reviewer} .*? 1 0 —`));
	});

	it('a conflict: the vote is refused (403), the others stay hidden, the assignment passes on, admins read it', async () => {
		const id = await apply(newAccount(), 'Friend Fred');
		const before = await assignedOn(id);
		const account = [configured, ...portal].find((a) => lower(a) === before[0])!;
		const cookie = cookies.get(account)!;
		expect((await post(`/review/${id}?/conflict`, { reason: '' }, cookie)).status).toBe(400);
		expect((await post(`/review/${id}?/conflict`, { reason: 'x'.repeat(501) }, cookie)).status).toBe(400);
		expect((await post(`/review/${id}?/conflict`, { reason: 'We founded a company together' }, cookie)).status).toBe(
			303
		);
		expect((await post(`/review/${id}?/vote`, { vote: 'approve' }, cookie)).status).toBe(403);
		const after = await assignedOn(id);
		expect(after).toHaveLength(2);
		expect(after).not.toContain(lower(account));
		const other = [configured, ...portal].find((a) => lower(a) === after[0])!;
		expect(
			(await post(`/review/${id}?/vote`, { vote: 'approve', comment: 'OTHER-VOTE' }, cookies.get(other))).status
		).toBe(303);
		for (const path of [`/review/${id}`, `/review/${id}/__data.json`])
			expect((await getPage(`${base}${path}`, cookie)).body).not.toContain('OTHER-VOTE');
		const adminPage = textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body);
		expect(adminPage).toContain('We founded a company together');
	});

	it('admins assign and unassign; never the applicant; 404 for an assignment that is not there', async () => {
		const applicant = portal[1]!;
		const id = await apply(applicant, 'Assign Ann');
		const free = [configured, ...portal].map(lower).find((a) => a !== lower(applicant));
		const current = await assignedOn(id);
		expect((await post(`/admin/applications/${id}?/assign`, { reviewer: applicant.address })).status).toBe(400);
		expect((await post(`/admin/applications/${id}?/assign`, { reviewer: lower(newAccount()) })).status).toBe(400);
		expect((await post(`/admin/applications/${id}?/unassign`, { reviewer: current[0]! })).status).toBe(303);
		expect(await assignedOn(id)).toEqual(current.slice(1));
		expect((await post(`/admin/applications/${id}?/unassign`, { reviewer: current[0]! })).status).toBe(404);
		expect((await post(`/admin/applications/${id}?/assign`, { reviewer: free! })).status).toBe(303);
		expect(await assignedOn(id)).toContain(free);
	});

	it('a removed reviewer’s votes stay and count', async () => {
		const id = await apply(newAccount(), 'Counted Carl');
		const r = portal[2]!;
		expect((await post(`/review/${id}?/vote`, { vote: 'approve', comment: 'KEPT-VOTE' }, cookies.get(r))).status).toBe(
			303
		);
		expect((await post('/admin/reviewers?/remove', { address: r.address })).status).toBe(303);
		expect((await getPage(`${base}/review`, cookies.get(r))).status).toBe(404);
		const adminPage = textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body);
		expect(adminPage).toContain('KEPT-VOTE');
		expect(adminPage).toContain('1 approve');
		expect(textOf((await getPage(`${base}/admin?q=Counted`, adminCookie)).body)).toMatch(/Counted Carl .* 1 approve /);
	});
});

// Two portal processes on one Postgres database: a change through one takes effect in the other within a second.
describe.runIf(serverUrl)('reviewers across two processes', () => {
	let database: ServerDatabase;
	const servers: RunningServer[] = [];
	beforeAll(async () => {
		database = await createServerDatabase(requireServerUrl(), { prefix: 'portal_assign2', migrate: true });
		const env = { DATABASE_URL: database.url, ADMIN_ADDRESSES: admin.address };
		servers.push(...(await Promise.all([0, 1].map(() => startServer({ env })))));
	}, 120_000);
	afterAll(async () => {
		await Promise.all(servers.map((s) => s.stop()));
		await database?.drop();
	});

	it('added through one process, /review opens in the other within a second; removed, it hides there too', async () => {
		const [a, b] = servers as [RunningServer, RunningServer];
		const adminCookie = await signIn(a.url, admin);
		const r = newAccount();
		const cookie = await signIn(b.url, r);
		const status = async () => (await getPage(`${b.url}/review`, cookie)).status;
		const unknown = (await getPage(`${b.url}/nope00`, cookie)).body;
		expect(await status()).toBe(404);
		const until = async (want: number) => {
			const started = Date.now();
			while ((await status()) !== want) {
				if (Date.now() - started > 1500) throw new Error(`still not ${want} after 1.5 s`);
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
			return Date.now() - started;
		};
		expect(
			(await postForm(`${a.url}/admin/reviewers?/add`, { address: r.address }, { cookie: adminCookie })).status
		).toBe(303);
		expect(await until(200)).toBeLessThanOrEqual(1500);
		expect(
			(await postForm(`${a.url}/admin/reviewers?/remove`, { address: r.address }, { cookie: adminCookie })).status
		).toBe(303);
		expect(await until(404)).toBeLessThanOrEqual(1500);
		// Hidden again exactly as an unknown path.
		expect((await getPage(`${b.url}/review`, cookie)).body.length).toBe(unknown.length);
	}, 60_000);
});
