import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowlistCsvStream, applicationsCsv } from '../../src/lib/server/applications/exports';
import { parseTableQuery } from '../../src/lib/server/applications/review-table';
import { rowsOf } from '../../src/lib/server/db/rows';
import { createTestDatabase, engines, type TestDatabase } from '../helpers/db';

const query = (search: string) => parseTableQuery(new URLSearchParams(search));
const lines = (text: string) => text.split('\r\n').slice(1, -1);
const idOf = (line: string) => line.slice(1, 37);

/** Reads a download chunk by chunk as a client would. */
async function readAll(stream: ReadableStream<Uint8Array>) {
	return new Response(stream).text();
}

describe.each(engines)('streamed exports on %s', (engine) => {
	let t: TestDatabase;
	// Oldest first by (created_at, id): 23 applications; five share one instant, so the id breaks ties across batches.
	let ordered: string[] = [];
	beforeAll(async () => {
		t = await createTestDatabase(engine, { max: 3 });
		await t.db.execute(
			sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, 23) g`
		);
		await t.db.execute(sql`insert into applications (applicant_address, display_name, motivation, review, created_at)
			select '0x' || lpad(to_hex(g), 40, '0'), 'Person ' || g, 'Seeds',
				(case when g % 3 = 0 then 'approved' else 'pending' end)::review_state,
				timestamptz '2026-01-01 00:00:00.123456Z' + make_interval(secs => greatest(g, 10))
			from generate_series(1, 23) g`);
		ordered = rowsOf<{ id: string }>(await t.db.execute(sql`select id from applications order by created_at, id`)).map(
			(r) => r.id
		);
	});
	afterAll(() => t?.drop());

	it('stitches batches into every row once, in the order of either sort, whatever the batch size', async () => {
		for (const size of [1, 4, 5, 23, 2000]) {
			const oldest = lines(await readAll(await applicationsCsv(t.handle, query(''), undefined, size)));
			expect(oldest.map(idOf)).toEqual(ordered);
			const newest = lines(await readAll(await applicationsCsv(t.handle, query('sort=newest'), undefined, size)));
			expect(newest.map(idOf)).toEqual([...ordered].reverse());
		}
	});

	it('keeps the filters across batches', async () => {
		const approved = lines(await readAll(await applicationsCsv(t.handle, query('review=approved'), undefined, 2)));
		expect(approved).toHaveLength(7);
		expect(approved.every((l) => l.includes('"approved"'))).toBe(true);
		const named = lines(await readAll(await applicationsCsv(t.handle, query('q=Person 1'), undefined, 3)));
		// Person 1 and 10–19
		expect(named).toHaveLength(11);
		const allowlist = lines(await readAll(await allowlistCsvStream(t.handle, 2)));
		expect(allowlist).toHaveLength(7);
	});

	it('leaves out applications submitted while the download runs, and on a server every change made meanwhile', async () => {
		const reader = (await applicationsCsv(t.handle, query(''), undefined, 4)).getReader();
		const decoder = new TextDecoder();
		let text = decoder.decode((await reader.read()).value, { stream: true });
		const last = ordered.at(-1)!;
		await t.db.execute(
			sql`insert into members (address) values ('0x00000000000000000000000000000000000000ff') on conflict do nothing`
		);
		await t.db.execute(sql`insert into applications (applicant_address, display_name, motivation)
			values ('0x00000000000000000000000000000000000000ff', 'Latecomer', 'Late')`);
		await t.db.execute(sql`update applications set display_name = 'Renamed' where id = ${last}`);
		for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
			text += decoder.decode(chunk.value, { stream: true });
		const rows = lines(text);
		expect(rows.map(idOf)).toEqual(ordered);
		expect(text).not.toContain('Latecomer');
		// A server holds one snapshot for the download; PGlite reads each batch as it is then (docs/decisions/0038).
		if (engine === 'postgres') expect(rows.at(-1)).toContain('"Person 23"');
		await t.db.execute(sql`update applications set display_name = 'Person 23' where id = ${last}`);
		await t.db.execute(sql`delete from applications where display_name = 'Latecomer'`);
	});

	it('gives its connection back when the client goes away half-way', async () => {
		// A server's pool of one connection; PGlite has only one anyway.
		const small = engine === 'postgres' ? await createTestDatabase(engine, { max: 1 }) : t;
		try {
			if (small !== t) {
				await small.db.execute(
					sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, 23) g`
				);
				await small.db.execute(sql`insert into applications (applicant_address, display_name, motivation)
					select '0x' || lpad(to_hex(g), 40, '0'), 'P' || g, 'M' from generate_series(1, 23) g`);
			}
			const reader = (await applicationsCsv(small.handle, query(''), undefined, 5)).getReader();
			await reader.read();
			await reader.cancel();
			// With one connection, this waits forever if the download still held it.
			const counted = rowsOf<{ n: number }>(await small.db.execute(sql`select count(*)::int as n from applications`));
			expect(counted[0]!.n).toBe(23);
			if (engine === 'postgres') {
				const open = rowsOf<{ n: number }>(
					await small.db.execute(
						sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`
					)
				);
				expect(open[0]!.n).toBe(0);
			}
		} finally {
			if (small !== t) await small.drop();
		}
	}, 120_000);
});
