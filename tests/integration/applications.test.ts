import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitApplication } from '../../src/lib/server/applications/submit';
import { applicationsOf } from '../../src/lib/server/applications/record';
import { transitionApplication } from '../../src/lib/server/applications/moves';
import { createTestDatabase, engines, serverUrl, type TestDatabase } from '../helpers/db';
import { OUTBOX_OFF } from '../helpers/outbox';
import {
	addMember,
	adminMember,
	applicationById,
	countRows,
	eventsOf,
	randomAddress,
	seedApplication
} from '../helpers/members';

const good = {
	displayName: 'Ada Lovelace',
	motivation: 'I would like to help with the docs.',
	contact: '@ada:matrix.org'
};

describe.each(engines)('submitApplication on %s', (engine) => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase(engine);
	});
	afterAll(() => t?.drop());

	it('creates a pending / pending / pending application with the trimmed fields; contact is optional', async () => {
		const member = await addMember(t.db);
		const result = await submitApplication(t.db, OUTBOX_OFF, member, {
			displayName: '  Ada  ',
			motivation: 'Line one\r\nLine two\n',
			contact: undefined
		});
		expect(result).toMatchObject({ ok: true, value: { resubmitted: false } });
		const [app] = await applicationsOf(t.db, member.address);
		expect(app).toMatchObject({
			applicantAddress: member.address,
			displayName: 'Ada',
			motivation: 'Line one\nLine two',
			contact: '',
			review: 'pending',
			allowlist: 'pending',
			distribution: 'pending',
			events: []
		});
	});

	it('refuses a second application while one is pending or approved (409), and writes nothing', async () => {
		for (const review of ['pending', 'approved']) {
			const member = await addMember(t.db);
			const app = await seedApplication(t.db, member.address, { review });
			const before = await countRows(t.db, 'applications');
			const result = await submitApplication(t.db, OUTBOX_OFF, member, good);
			expect(result).toMatchObject({ ok: false, status: 409 });
			expect(await countRows(t.db, 'applications')).toBe(before);
			expect(await applicationById(t.db, app.id)).toEqual(app);
		}
	});

	it('allows a new application after a rejection and keeps the rejected one with its history', async () => {
		const member = await addMember(t.db);
		const first = await submitApplication(t.db, OUTBOX_OFF, member, good);
		if (!first.ok) throw new Error('first submission refused');
		const admin = adminMember();
		expect(
			await transitionApplication(t.db, OUTBOX_OFF, null, admin, {
				applicationId: first.value.application.id,
				field: 'review',
				to: 'rejected',
				reason: 'Too early'
			})
		).toMatchObject({ ok: true });
		const second = await submitApplication(t.db, OUTBOX_OFF, member, { ...good, displayName: 'Ada, again' });
		expect(second).toMatchObject({ ok: true, value: { resubmitted: false } });
		const apps = await applicationsOf(t.db, member.address);
		expect(apps.map((a) => [a.displayName, a.review])).toEqual([
			['Ada, again', 'pending'],
			['Ada Lovelace', 'rejected']
		]);
		expect(apps[1]!.events).toMatchObject([
			{ fromState: 'pending', toState: 'rejected', reason: 'Too early', executorAddress: admin.address }
		]);
	});

	it('counts every call, also refused ones: the 6th submission in 24 hours answers 429 and is not processed', async () => {
		const member = await addMember(t.db);
		for (let i = 0; i < 5; i++) {
			expect(await submitApplication(t.db, OUTBOX_OFF, member, { displayName: '' })).toMatchObject({
				ok: false,
				status: 400
			});
		}
		const result = await submitApplication(t.db, OUTBOX_OFF, member, good);
		expect(result).toMatchObject({ ok: false, status: 429 });
		if (result.ok || result.status !== 429) throw new Error('expected 429');
		expect(result.retryAfterSeconds).toBeGreaterThan(86_000);
		expect(result.message).toMatch(/try again in 23 hours 59 minutes|try again in 24 hours/);
		expect(await applicationsOf(t.db, member.address)).toEqual([]);
	});

	it('a session whose member row is gone answers 401 and writes nothing', async () => {
		const ghost = { address: randomAddress(), isAdmin: false };
		const before = await countRows(t.db, 'applications');
		expect(await submitApplication(t.db, OUTBOX_OFF, ghost, good)).toMatchObject({ ok: false, status: 401 });
		expect(await countRows(t.db, 'applications')).toBe(before);
	});

	it('accepts the longest values, counted in characters as the database counts them', async () => {
		const member = await addMember(t.db);
		const result = await submitApplication(t.db, OUTBOX_OFF, member, {
			displayName: '😀'.repeat(80),
			motivation: 'é'.repeat(2000),
			contact: 'c'.repeat(200)
		});
		expect(result).toMatchObject({ ok: true });
	});

	const file = new File(['x'], 'x.txt');
	const badInput: [string, string, unknown, RegExp][] = [
		['displayName', 'empty', '', /required/],
		['displayName', 'blank', '   ', /required/],
		['displayName', 'missing', undefined, /required/],
		['displayName', 'too long', 'x'.repeat(81), /at most 80/],
		['displayName', 'a control character', 'Ada\u0007', /control characters/],
		['displayName', 'a line break', 'Ada\nLovelace', /line breaks/],
		['displayName', 'a file', file, /must be text/],
		['displayName', 'two values', ['Ada', 'Bob'], /must be text/],
		['displayName', 'a lone surrogate', 'Ada\ud800', /not valid text/],
		['motivation', 'empty', '', /required/],
		['motivation', 'too long', 'x'.repeat(2001), /at most 2000/],
		['motivation', 'a NUL', 'Hi\u0000there', /control characters/],
		['motivation', 'a C1 control', 'Hi\u0085there', /control characters/],
		['motivation', 'a number', 42, /must be text/],
		['contact', 'too long', 'x'.repeat(201), /at most 200/],
		['contact', 'an escape sequence', '\u001b[31m@ada', /control characters/],
		['contact', 'a file', file, /must be text/]
	];

	it.each(badInput)(
		'refuses %s that is %s (400 with a message for the field) and writes nothing',
		async (field, _, value, message) => {
			const member = await addMember(t.db);
			const before = await countRows(t.db, 'applications');
			const result = await submitApplication(t.db, OUTBOX_OFF, member, { ...good, [field]: value });
			expect(result).toMatchObject({ ok: false, status: 400 });
			if (result.ok || result.status !== 400) throw new Error('expected 400');
			expect(result.errors[field]).toMatch(message);
			expect(Object.keys(result.errors)).toEqual([field]);
			expect(await countRows(t.db, 'applications')).toBe(before);
		}
	);
});

describe.runIf(serverUrl)('submitApplication and transitionApplication concurrency on the Postgres server', () => {
	let t: TestDatabase;
	beforeAll(async () => {
		t = await createTestDatabase('postgres', { max: 30 });
	});
	afterAll(() => t?.drop());

	it('30 parallel submissions by one member: exactly 5 pass the limit and at most one application is created', async () => {
		const member = await addMember(t.db);
		const results = await Promise.all(
			Array.from({ length: 30 }, (_, i) =>
				submitApplication(t.db, OUTBOX_OFF, member, { ...good, displayName: `Ada ${i}` })
			)
		);
		const statuses = results.map((r) => (r.ok ? 'ok' : r.status));
		expect(statuses.filter((s) => s === 429)).toHaveLength(25);
		expect(statuses.filter((s) => s === 'ok')).toHaveLength(1);
		expect(statuses.filter((s) => s === 409)).toHaveLength(4);
		expect(await applicationsOf(t.db, member.address)).toHaveLength(1);
	});

	it('two admins moving the same application at once: one succeeds, one gets 409, one audit row', async () => {
		for (let round = 0; round < 10; round++) {
			const member = await addMember(t.db);
			const app = await seedApplication(t.db, member.address);
			const [a, b] = [adminMember(), adminMember()];
			const results = await Promise.all([
				transitionApplication(t.db, OUTBOX_OFF, null, a, { applicationId: app.id, field: 'review', to: 'approved' }),
				transitionApplication(t.db, OUTBOX_OFF, null, b, {
					applicationId: app.id,
					field: 'review',
					to: 'rejected',
					reason: 'Not a fit'
				})
			]);
			const statuses = results.map((r) => (r.ok ? 'ok' : r.status)).sort();
			expect(statuses).toEqual([409, 'ok']);
			const events = await eventsOf(t.db, app.id);
			expect(events).toHaveLength(1);
			const winner = results[0].ok ? a : b;
			expect(events[0]!.executorAddress).toBe(winner.address);
			expect((await applicationById(t.db, app.id))!.review).toBe(events[0]!.toState);
		}
	});
});
