// A fixed, small history for /admin/insights, laid relative to the database clock's current UTC week
// and day, with the numbers each chart must show written out by hand (tests/http/insights.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import postgres from 'postgres';
import { createDb } from '../../src/lib/server/db/client';
import type { Engine } from './db';
import { requireServerUrl } from './db';
import { createServerDatabase } from './postgres.js';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
export const SEEDED_REVIEWERS = [addr(0xa1), addr(0xa2)];

// W = this UTC week's Monday, D = today (UTC). Applications: 1 this week (pending), 3 a week ago
// (approved after 2 days, rejected after 4, pending), 2 three weeks ago (approved after 1 day then
// allowlisted and sent; needs_info after 3 days then resubmitted), 1 thirty weeks ago (approved,
// allowlisted: in the funnel only). Check-ins: 3 today by 2 members, 1 yesterday, 2 by one member
// 89 days ago, 1 ninety days ago (outside the window).
export const SEED_SQL = `
insert into members (address) select '0x' || lpad(to_hex(n), 40, '0') from generate_series(1, 10) n;
create temporary table t as select date_trunc('week', now(), 'UTC') as w, date_trunc('day', now(), 'UTC') as d;
insert into applications (id, applicant_address, display_name, motivation, review, allowlist, distribution, created_at) values
 ('00000000-0000-4000-8000-000000000007', '${addr(7)}', 'Seven', 'm', 'pending', 'pending', 'pending', now()),
 ('00000000-0000-4000-8000-000000000001', '${addr(1)}', 'One', 'm', 'approved', 'pending', 'pending', (select w from t) - interval '7 days' + interval '1 day'),
 ('00000000-0000-4000-8000-000000000002', '${addr(2)}', 'Two', 'm', 'rejected', 'pending', 'pending', (select w from t) - interval '7 days' + interval '1 day'),
 ('00000000-0000-4000-8000-000000000003', '${addr(3)}', 'Three', 'm', 'pending', 'pending', 'pending', (select w from t) - interval '7 days' + interval '2 days'),
 ('00000000-0000-4000-8000-000000000004', '${addr(4)}', 'Four', 'm', 'approved', 'added', 'sent', (select w from t) - interval '21 days' + interval '3 hours'),
 ('00000000-0000-4000-8000-000000000005', '${addr(5)}', 'Five', 'm', 'pending', 'pending', 'pending', (select w from t) - interval '21 days' + interval '5 hours'),
 ('00000000-0000-4000-8000-000000000006', '${addr(6)}', 'Six', 'm', 'approved', 'added', 'pending', (select w from t) - interval '210 days');
insert into application_events (application_id, executor_address, field, from_state, to_state, reason, created_at)
select e.id::uuid, '${addr(0xad)}', e.field::application_field, e.from_state, e.to_state, e.reason, ap.created_at + e.after
from (values
 ('00000000-0000-4000-8000-000000000001', 'review', 'pending', 'approved', null, interval '2 days'),
 ('00000000-0000-4000-8000-000000000002', 'review', 'pending', 'rejected', 'no', interval '4 days'),
 ('00000000-0000-4000-8000-000000000004', 'review', 'pending', 'approved', null, interval '1 day'),
 ('00000000-0000-4000-8000-000000000004', 'allowlist', 'pending', 'added', null, interval '2 days'),
 ('00000000-0000-4000-8000-000000000005', 'review', 'pending', 'needs_info', 'more', interval '3 days'),
 ('00000000-0000-4000-8000-000000000005', 'review', 'needs_info', 'pending', 'resubmitted', interval '4 days'),
 ('00000000-0000-4000-8000-000000000006', 'review', 'pending', 'approved', null, interval '1 day')
) as e(id, field, from_state, to_state, reason, after)
join applications ap on ap.id = e.id::uuid;
insert into check_ins (member_address, created_at) values
 ('${addr(1)}', now()), ('${addr(2)}', now()), ('${addr(1)}', now()),
 ('${addr(3)}', (select d from t) - interval '12 hours'),
 ('${addr(4)}', (select d from t) - interval '89 days' + interval '1 hour'),
 ('${addr(4)}', (select d from t) - interval '89 days' + interval '2 hours'),
 ('${addr(5)}', (select d from t) - interval '90 days' + interval '1 hour');
drop table t;
`;

// Votes of two reviewers (application_votes, drizzle/0008), the newest row of each (reviewer, application) being the current vote.
export const VOTES_SQL = `
insert into application_votes (application_id, reviewer_address, vote, created_at) values
 ('00000000-0000-4000-8000-000000000003', '${SEEDED_REVIEWERS[0]}', 'reject', now() - interval '2 hours'),
 ('00000000-0000-4000-8000-000000000003', '${SEEDED_REVIEWERS[0]}', 'approve', now() - interval '1 hour'),
 ('00000000-0000-4000-8000-000000000005', '${SEEDED_REVIEWERS[0]}', 'abstain', now()),
 ('00000000-0000-4000-8000-000000000003', '${SEEDED_REVIEWERS[1]}', 'reject', now());
`;

export interface SeededDatabase {
	/** What the server gets: PGLITE_DATA_DIR or DATABASE_URL. */
	env: Record<string, string>;
	/** Runs SQL on it (on PGlite only while no server has the folder open). */
	run(text: string): Promise<Record<string, unknown>[]>;
	drop(): Promise<void>;
}

/** A migrated database of its own holding SEED_SQL. */
export async function seededDatabase(engine: Engine): Promise<SeededDatabase> {
	if (engine === 'pglite') {
		const dir = mkdtempSync(path.join(tmpdir(), 'portal-insights-'));
		const handle = createDb({ databaseUrl: null, pgliteDataDir: dir });
		await handle.ready();
		await handle.close();
		const run = async (text: string) => {
			const db = new PGlite(dir, { extensions: { pg_trgm } });
			try {
				const results = await db.exec(text);
				return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
			} finally {
				await db.close();
			}
		};
		await run(SEED_SQL);
		return {
			env: { PGLITE_DATA_DIR: dir },
			run,
			drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true }))
		};
	}
	const database = await createServerDatabase(requireServerUrl(), { prefix: 'portal_insights' });
	const sql = postgres(database.url, { max: 1, onnotice: () => {} });
	const run = async (text: string) => {
		const results = await sql.unsafe(text).simple();
		const last = Array.isArray(results[0]) ? results.at(-1) : results;
		return [...((last as Record<string, unknown>[] | undefined) ?? [])];
	};
	await run(SEED_SQL);
	return {
		env: { DATABASE_URL: database.url },
		run,
		async drop() {
			await sql.end();
			await database.drop();
		}
	};
}

/** The rows of the table `id` as cell texts (header cell first), Svelte's markers stripped. */
export function tableRows(html: string, id: string): string[][] {
	const table = new RegExp(`<table id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(html)?.[1];
	if (!table) throw new Error(`no table ${id}`);
	const body = /<tbody>([\s\S]*)<\/tbody>/.exec(table)![1]!;
	return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
		[...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
			cell[1]!
				.replace(/<!--[\s\S]*?-->/g, '')
				.replace(/<[^>]+>/g, '')
				.trim()
		)
	);
}
