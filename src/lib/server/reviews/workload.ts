import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { rowsOf } from '../db/rows';

export interface Workload {
	address: string;
	/** Assignments on pending applications without this reviewer's vote. */
	open: number;
	/** Applications this reviewer voted on in the last 30 days. */
	votes30d: number;
	/** Median seconds from an assignment to the reviewer's first vote after it; null before any. */
	medianSecondsToVote: number | null;
}

/** Each given reviewer's workload (decision 0040), in the order given; one statement. */
export async function workloadOf(db: Database, addresses: readonly string[]): Promise<Workload[]> {
	if (!addresses.length) return [];
	const rows = rowsOf<{ address: string; open: number; votes: number; median: number | null }>(
		await db.execute(sql`
			select r.address, r.n,
				(select count(*)::int from review_assignments a
					join applications p on p.id = a.application_id and p.review = 'pending'
					where a.reviewer_address = r.address and not exists (select 1 from application_votes v
						where v.application_id = a.application_id and v.reviewer_address = a.reviewer_address)) as open,
				(select count(distinct v.application_id)::int from application_votes v
					where v.reviewer_address = r.address and v.created_at > now() - interval '30 days') as votes,
				(select percentile_cont(0.5) within group (order by extract(epoch from f.first - a.assigned_at))
					from review_assignments a
					cross join lateral (select min(v.created_at) as first from application_votes v
						where v.application_id = a.application_id and v.reviewer_address = a.reviewer_address
						and v.created_at >= a.assigned_at) f
					where a.reviewer_address = r.address and f.first is not null)::float8 as median
			from jsonb_array_elements_text(${JSON.stringify(addresses)}::jsonb) with ordinality as r(address, n)
			order by r.n`)
	);
	return rows.map((r) => ({
		address: r.address,
		open: Number(r.open),
		votes30d: Number(r.votes),
		medianSecondsToVote: r.median === null ? null : Number(r.median)
	}));
}

/** A median wait as people say it: "3 d 4 h", "2 h 5 min", "40 min", "under a minute", or "—". */
export function formatWait(seconds: number | null): string {
	if (seconds === null) return '—';
	const minutes = Math.floor(seconds / 60);
	if (minutes < 1) return 'under a minute';
	const days = Math.floor(minutes / 1440);
	const hours = Math.floor((minutes % 1440) / 60);
	if (days) return hours ? `${days} d ${hours} h` : `${days} d`;
	if (hours) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
	return `${minutes} min`;
}
