// The one move pipeline (src/lib/server/applications/moves.ts applyMoves), called as code calls it:
// the entry point other features (a move found on chain) build on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMoves } from '../../src/lib/server/applications/moves';
import { webhookDeliveries } from '../../src/lib/server/db/schema';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { webhooksTo } from '../helpers/outbox';
import { addMember, adminMember, applicationById, eventsOf, randomTxHash, seedApplication } from '../helpers/members';

describe.each(engines)('applyMoves on %s', (engine) => {
	let t: TestDatabase;
	// Outbox rows are written only for configured endpoints; nothing is delivered here (no worker).
	const outbox = webhooksTo('https://hooks.example.test/in');
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(async () => {
		await t?.drop();
	});

	const approved = async () => seedApplication(t.db, (await addMember(t.db)).address, { review: 'approved' });
	const move = { field: 'allowlist', to: 'added', reason: '', from: '' } as const;

	it('moves several applications with the chain’s word taken as given: rows, audit rows and events in the order asked', async () => {
		const [a, b] = [await approved(), await approved()];
		const txHash = randomTxHash();
		const executor = adminMember();
		const outcome = await applyMoves(
			t.db,
			outbox,
			executor,
			{ ...move, applicationIds: [b.id, a.id], txHash },
			{ txVerified: true }
		);
		expect(outcome.ok).toBe(true);
		if (!outcome.ok) return;
		expect(outcome.value.applications.map((x) => [x.id, x.allowlist])).toEqual([
			[b.id, 'added'],
			[a.id, 'added']
		]);
		expect(outcome.value.events.map((e) => e.applicationId)).toEqual([b.id, a.id]);
		for (const app of [a, b]) {
			expect(await eventsOf(t.db, app.id)).toMatchObject([
				{ executorAddress: executor.address, fromState: 'pending', toState: 'added', txHash, txVerified: true }
			]);
		}
		const sent = (await t.db.select().from(webhookDeliveries)).filter((r) =>
			[a.id, b.id].includes(r.data.applicationId as string)
		);
		expect(sent.map((r) => r.eventType)).toEqual(['application.transitioned', 'application.transitioned']);
	});

	it('all or nothing: one that cannot move refuses them all with 409 naming it, and writes nothing', async () => {
		const ok = await approved();
		const pending = await seedApplication(t.db, (await addMember(t.db)).address);
		const outcome = await applyMoves(
			t.db,
			outbox,
			adminMember(),
			{
				...move,
				applicationIds: [ok.id, pending.id],
				txHash: randomTxHash()
			},
			{ txCheck: null }
		);
		expect(outcome).toMatchObject({ ok: false, status: 409, refused: [{ id: pending.id }] });
		expect(await applicationById(t.db, ok.id)).toEqual(ok);
		expect(await eventsOf(t.db, ok.id)).toEqual([]);
	});

	it('answers as a single move with answer: one (400 on applicationId, "changed meanwhile")', async () => {
		const app = await approved();
		const missing = '00000000-0000-4000-8000-000000000000';
		expect(
			await applyMoves(
				t.db,
				outbox,
				adminMember(),
				{ ...move, applicationIds: [missing], txHash: randomTxHash() },
				{ answer: 'one', txCheck: null }
			)
		).toMatchObject({ ok: false, status: 400, errors: { applicationId: 'No application has this id.' } });
		const stale = await applyMoves(
			t.db,
			outbox,
			adminMember(),
			{ ...move, applicationIds: [app.id], txHash: randomTxHash(), from: 'failed' },
			{ answer: 'one', txCheck: null }
		);
		expect(stale).toMatchObject({ ok: false, status: 409 });
		expect(stale.ok === false && stale.message).toMatch(/changed meanwhile and is now/);
		expect(await eventsOf(t.db, app.id)).toEqual([]);
	});
});
