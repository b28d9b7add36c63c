import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import { addMember, adminMember, applicationById, eventsOf, randomTxHash, seedApplication } from '../helpers/members';
import { PERMITTED, STATES, TERMINAL } from '../helpers/transition-table';

const statesOf = (app: { review: string; allowlist: string; distribution: string }) => ({
	review: app.review,
	allowlist: app.allowlist,
	distribution: app.distribution
});

describe.each(engines)('transitionApplication on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	async function appIn(states: { review: string; allowlist?: string; distribution?: string }) {
		const member = await addMember(t.db);
		return seedApplication(t.db, member.address, states);
	}

	const setupFor = (field: string, from: string) =>
		field === 'review' ? { review: from } : { review: 'approved', [field]: from };

	it.each(PERMITTED)(
		'permits %s %s → %s, writing one audit row with executor, reason and tx hash',
		async (field, from, to, needs) => {
			const app = await appIn(setupFor(field, from));
			const admin = adminMember();
			const txHash = needs.txHash ? randomTxHash().toUpperCase().replace('0X', '0x') : '';
			const reason = needs.reason ? 'Documented in the forum thread.' : '';
			const result = await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
				applicationId: app.id,
				field,
				to,
				reason,
				txHash
			});
			expect(result).toMatchObject({ ok: true });
			const after = await applicationById(t.db, app.id);
			expect(after![field]).toBe(to);
			expect(statesOf(after!)).toEqual({ ...statesOf(app), [field]: to });
			expect(after!.updatedAt.getTime()).toBeGreaterThanOrEqual(app.updatedAt.getTime());
			const events = await eventsOf(t.db, app.id);
			expect(events).toHaveLength(1);
			expect(events[0]).toMatchObject({
				executorAddress: admin.address,
				field,
				fromState: from,
				toState: to,
				reason: reason || null,
				txHash: txHash ? txHash.toLowerCase() : null
			});
			expect(events[0]!.createdAt).toBeInstanceOf(Date);
		}
	);

	it('permits needs_info → pending only by the applicant re-submitting (executor = applicant, reason resubmitted)', async () => {
		const member = await addMember(t.db);
		const app = await seedApplication(t.db, member.address, { review: 'needs_info' });
		const byAdmin = await transitionApplication(t.db, OUTBOX_OFF, null, adminMember(), {
			applicationId: app.id,
			field: 'review',
			to: 'pending'
		});
		expect(byAdmin).toMatchObject({ ok: false, status: 409 });
		expect(await eventsOf(t.db, app.id)).toHaveLength(0);

		const result = await submitApplication(t.db, OUTBOX_OFF, member, {
			displayName: 'Ada L.',
			motivation: 'More detail, as asked.',
			contact: '@ada'
		});
		expect(result).toMatchObject({ ok: true, value: { resubmitted: true } });
		const after = await applicationById(t.db, app.id);
		expect(after).toMatchObject({
			review: 'pending',
			displayName: 'Ada L.',
			motivation: 'More detail, as asked.',
			contact: '@ada'
		});
		expect(await eventsOf(t.db, app.id)).toMatchObject([
			{
				executorAddress: member.address,
				field: 'review',
				fromState: 'needs_info',
				toState: 'pending',
				reason: 'resubmitted',
				txHash: null
			}
		]);
	});

	const refused: [
		string,
		{ review: string; allowlist?: string; distribution?: string },
		Record<string, string>,
		400 | 409,
		string?
	][] = [
		[
			'allowlist before approval (pending)',
			{ review: 'pending' },
			{ field: 'allowlist', to: 'added', txHash: randomTxHash() },
			409
		],
		[
			'allowlist before approval (needs_info)',
			{ review: 'needs_info' },
			{ field: 'allowlist', to: 'failed', reason: 'x' },
			409
		],
		[
			'allowlist after rejection',
			{ review: 'rejected' },
			{ field: 'allowlist', to: 'added', txHash: randomTxHash() },
			409
		],
		[
			'distribution before approval',
			{ review: 'pending' },
			{ field: 'distribution', to: 'sent', txHash: randomTxHash() },
			409
		],
		['distribution after rejection', { review: 'rejected' }, { field: 'distribution', to: 'failed', reason: 'x' }, 409],
		['leaving approved', { review: 'approved' }, { field: 'review', to: 'rejected', reason: 'changed our mind' }, 409],
		[
			'leaving approved for needs_info',
			{ review: 'approved' },
			{ field: 'review', to: 'needs_info', reason: 'x' },
			409
		],
		['leaving rejected', { review: 'rejected' }, { field: 'review', to: 'approved' }, 409],
		['leaving rejected for pending', { review: 'rejected' }, { field: 'review', to: 'pending' }, 409],
		[
			'leaving allowlist added',
			{ review: 'approved', allowlist: 'added' },
			{ field: 'allowlist', to: 'failed', reason: 'x' },
			409
		],
		[
			'leaving distribution sent',
			{ review: 'approved', distribution: 'sent' },
			{ field: 'distribution', to: 'failed', reason: 'x' },
			409
		],
		['a same-state review move', { review: 'pending' }, { field: 'review', to: 'pending' }, 409],
		[
			'a same-state needs_info move',
			{ review: 'needs_info' },
			{ field: 'review', to: 'needs_info', reason: 'again' },
			409
		],
		[
			'a same-state allowlist move',
			{ review: 'approved', allowlist: 'failed' },
			{ field: 'allowlist', to: 'failed', reason: 'x' },
			409
		],
		[
			'failed back to pending',
			{ review: 'approved', distribution: 'failed' },
			{ field: 'distribution', to: 'pending' },
			409
		],
		[
			'needs_info → rejected without a reason',
			{ review: 'needs_info' },
			{ field: 'review', to: 'rejected' },
			400,
			'reason'
		],
		[
			'pending → needs_info without a reason',
			{ review: 'pending' },
			{ field: 'review', to: 'needs_info', reason: '   ' },
			400,
			'reason'
		],
		['allowlist failed without a reason', { review: 'approved' }, { field: 'allowlist', to: 'failed' }, 400, 'reason'],
		['allowlist added without a tx hash', { review: 'approved' }, { field: 'allowlist', to: 'added' }, 400, 'txHash'],
		[
			'distribution sent without a tx hash',
			{ review: 'approved', distribution: 'failed' },
			{ field: 'distribution', to: 'sent' },
			400,
			'txHash'
		],
		[
			'a tx hash on a review move',
			{ review: 'pending' },
			{ field: 'review', to: 'approved', txHash: randomTxHash() },
			400,
			'txHash'
		]
	];

	it.each(refused)(
		'refuses %s and leaves the application and the audit log unchanged',
		async (_, states, move, status, errorField) => {
			const app = await appIn(states);
			const result = await transitionApplication(t.db, OUTBOX_OFF, null, adminMember(), {
				applicationId: app.id,
				reason: '',
				txHash: '',
				...move
			});
			expect(result).toMatchObject({ ok: false, status });
			if (errorField) expect(result.ok === false && result.status === 400 && result.errors[errorField]).toBeTruthy();
			expect(await applicationById(t.db, app.id)).toEqual(app);
			expect(await eventsOf(t.db, app.id)).toEqual([]);
		}
	);

	it('refuses a move whose from-state is not the one the admin saw (409)', async () => {
		const app = await appIn({ review: 'needs_info' });
		const result = await transitionApplication(t.db, OUTBOX_OFF, null, adminMember(), {
			applicationId: app.id,
			field: 'review',
			to: 'approved',
			from: 'pending'
		});
		expect(result).toMatchObject({ ok: false, status: 409 });
		expect(await applicationById(t.db, app.id)).toEqual(app);
	});

	it('property: random transitions and resubmissions never leave a terminal state, move allowlist and distribution only after approval, and the audit rows replay to the current states', async () => {
		const field = fc.constantFrom('review', 'allowlist', 'distribution');
		const step = fc.oneof(
			{
				weight: 5,
				arbitrary: field.chain((f) =>
					fc.record({
						kind: fc.constant('transition' as const),
						field: fc.constant(f),
						to: fc.constantFrom(...STATES[f]!),
						reason: fc.boolean(),
						txHash: fc.boolean()
					})
				)
			},
			{ weight: 1, arbitrary: fc.record({ kind: fc.constant('resubmit' as const) }) }
		);
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
				const member = await addMember(t.db);
				const admin = adminMember();
				const first = await submitApplication(t.db, OUTBOX_OFF, member, { displayName: 'Prop', motivation: 'Testing' });
				if (!first.ok) throw new Error('first submission failed');
				let id = first.value.application.id;
				let submissions = 1;
				for (const s of steps) {
					const before = (await applicationById(t.db, id))!;
					const eventsBefore = await eventsOf(t.db, id);
					let ok: boolean;
					let status: number | undefined;
					if (s.kind === 'resubmit') {
						const result = await submitApplication(t.db, OUTBOX_OFF, member, {
							displayName: `Prop ${submissions}`,
							motivation: 'Again'
						});
						submissions++;
						ok = result.ok;
						status = result.ok ? undefined : result.status;
						// Oracle: over the limit → 429; needs_info → resubmitted; rejected → a new application; else 409.
						const expected =
							submissions > 5 ? 429 : before.review === 'needs_info' || before.review === 'rejected' ? 'ok' : 409;
						expect(ok ? 'ok' : status).toBe(expected);
						if (result.ok && !result.value.resubmitted) {
							expect(before.review).toBe('rejected');
							expect(await applicationById(t.db, id)).toEqual(before);
							id = result.value.application.id;
							continue;
						}
					} else {
						const txHash = s.txHash ? randomTxHash() : '';
						const result = await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
							applicationId: id,
							field: s.field,
							to: s.to,
							reason: s.reason ? 'because' : '',
							txHash
						});
						ok = result.ok;
						status = result.ok ? undefined : result.status;
						const row = PERMITTED.find(([f, from, to]) => f === s.field && from === before[s.field] && to === s.to);
						// What a target asks for does not depend on the from-state, so input checks (400) come first.
						const targets = PERMITTED.filter(([f, , to]) => f === s.field && to === s.to).map((r) => r[3]);
						const needsReason = targets.some((n) => n.reason);
						const needsTx = targets.some((n) => n.txHash);
						const expected =
							(s.field === 'review' && s.txHash) || (needsReason && !s.reason) || (needsTx && !s.txHash)
								? 400
								: row && (s.field === 'review' || before.review === 'approved')
									? 'ok'
									: 409;
						expect(ok ? 'ok' : status).toBe(expected);
					}

					const after = (await applicationById(t.db, id))!;
					const events = await eventsOf(t.db, id);
					if (!ok) {
						expect(after).toEqual(before);
						expect(events).toEqual(eventsBefore);
					} else {
						expect(events).toHaveLength(eventsBefore.length + 1);
					}
					for (const f of ['review', 'allowlist', 'distribution'] as const) {
						if (TERMINAL[f]!.includes(before[f])) expect(after[f]).toBe(before[f]);
					}
					if (after.allowlist !== before.allowlist || after.distribution !== before.distribution) {
						expect(before.review).toBe('approved');
					}
					const replay: Record<string, string> = { review: 'pending', allowlist: 'pending', distribution: 'pending' };
					for (const e of events) {
						expect(e.fromState).toBe(replay[e.field]);
						replay[e.field] = e.toState;
					}
					expect(replay).toEqual(statesOf(after));
				}
			}),
			{ numRuns: engine === 'pglite' ? 60 : 30 }
		);
	}, 180_000);
});
