// A small, fixed community for the visual suite (tests/e2e/visual.spec.ts): a form with its own
// questions and a rubric, applications in every state, votes, notes, check-ins and webhook deliveries.
// Times are laid on the current UTC week (as tests/helpers/insights-seed.ts does), so every chart has
// the same shape whatever the day; the dates themselves are masked in the screenshots.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { migratedDataFolder } from './server';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const id = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;

/** Who the seed knows: lowercase addresses of the fixed test accounts. */
export interface VisualCast {
	applicant: string;
	rejected: string;
	admin: string;
	reviewer: string;
}

export const VISUAL_IDS = { applicant: id(1), contested: id(2), rejected: id(3), sent: id(4), needsInfo: id(5) };

const QUESTIONS = [
	{ key: 'github', label: 'Your GitHub profile', type: 'url', required: true },
	{
		key: 'role',
		label: 'What do you mostly do?',
		type: 'single_choice',
		required: true,
		options: ['Development', 'Design', 'Writing', 'Organising events']
	},
	{ key: 'years', label: 'Years in open source', type: 'number', required: false, min: 0, max: 60 },
	{ key: 'weekly', label: 'Can you give two hours a week?', type: 'yes_no', required: true }
];
const RUBRIC = [
	{ key: 'impact', label: 'Impact', help: 'What the community gains.' },
	{ key: 'fit', label: 'Fit with the community' },
	{ key: 'clarity', label: 'Clarity of the application' }
];

const json = (value: unknown) => `'${JSON.stringify(value).replaceAll("'", "''")}'::jsonb`;

function seedSql(cast: VisualCast): string {
	const answers = (github: string, role: string, years: number, weekly: boolean) =>
		json({ github, role, years, weekly });
	const motivation = (text: string) => `'${text.replaceAll("'", "''")}'`;
	return `
insert into members (address) values ('${cast.applicant}'), ('${cast.rejected}'), ('${cast.admin}'), ('${cast.reviewer}');
insert into members (address) select '0x' || lpad(to_hex(n), 40, '0') from generate_series(1, 9) n;
insert into application_forms (created_by, questions, rubric) values ('${cast.admin}', ${json(QUESTIONS)}, ${json(RUBRIC)});
create temporary table t as select date_trunc('week', now(), 'UTC') as w;
insert into applications (id, applicant_address, display_name, motivation, contact, form_id, answers, review, allowlist, distribution, created_at) values
 ('${id(1)}', '${cast.applicant}', 'Ada Lovelace', ${motivation('I maintain the translation tooling our community uses and would like to help newcomers find their first issue. I also run a monthly call for documentation writers.')}, '@ada', 1, ${answers('https://github.com/ada-example', 'Development', 7, true)}, 'pending', 'pending', 'pending', (select w from t) - interval '7 days' + interval '1 day'),
 ('${id(2)}', '${addr(2)}', 'Grace Hopper', ${motivation('Compilers, mostly. I would like to review the grants programme and mentor two newcomers a season.')}, 'grace@example.org', 1, ${answers('https://github.com/grace-example', 'Writing', 12, false)}, 'pending', 'pending', 'pending', (select w from t) - interval '7 days' + interval '2 days'),
 ('${id(3)}', '${cast.rejected}', 'Linus Example', ${motivation('I want the token.')}, '', 1, ${answers('https://example.com/me', 'Design', 0, false)}, 'rejected', 'pending', 'pending', (select w from t) - interval '14 days'),
 ('${id(4)}', '${addr(4)}', 'Margaret Hamilton', ${motivation('I led the flight software team and now teach; I would help with our security reviews.')}, '@margaret', 1, ${answers('https://github.com/margaret-example', 'Development', 30, true)}, 'approved', 'added', 'sent', (select w from t) - interval '21 days' + interval '3 hours'),
 ('${id(5)}', '${addr(5)}', 'Alan Turing', ${motivation('Puzzles and machines. Happy to help with the newsletter.')}, '', 1, ${answers('https://github.com/alan-example', 'Writing', 3, true)}, 'needs_info', 'pending', 'pending', (select w from t) - interval '14 days' + interval '3 days'),
 ('${id(6)}', '${addr(6)}', 'Katherine Johnson', ${motivation('I organise the Lisbon meetup and would like to bring its members along.')}, '@katherine', 1, ${answers('https://github.com/katherine-example', 'Organising events', 9, true)}, 'approved', 'pending', 'pending', (select w from t) - interval '7 days' + interval '3 hours'),
 ('${id(7)}', '${addr(7)}', 'Barbara Liskov', ${motivation('Abstractions and substitution; I would review architecture proposals.')}, '', 1, ${answers('https://github.com/barbara-example', 'Development', 25, true)}, 'pending', 'pending', 'pending', now() - interval '2 hours');
insert into application_events (application_id, executor_address, field, from_state, to_state, reason, created_at)
select e.id::uuid, '${cast.admin}', e.field::application_field, e.from_state, e.to_state, e.reason, ap.created_at + e.after
from (values
 ('${id(3)}', 'review', 'pending', 'rejected', 'Nothing about what you would do here.', interval '2 days'),
 ('${id(4)}', 'review', 'pending', 'approved', null, interval '1 day'),
 ('${id(4)}', 'allowlist', 'pending', 'added', null, interval '2 days'),
 ('${id(4)}', 'distribution', 'pending', 'sent', null, interval '3 days'),
 ('${id(5)}', 'review', 'pending', 'needs_info', 'Which newsletter issues would you write?', interval '3 days'),
 ('${id(6)}', 'review', 'pending', 'approved', null, interval '5 hours')
) as e(id, field, from_state, to_state, reason, after)
join applications ap on ap.id = e.id::uuid;
insert into application_votes (application_id, reviewer_address, vote, scores, comment, created_at) values
 ('${id(1)}', '${cast.reviewer}', 'approve', ${json({ impact: 4, fit: 5, clarity: 4 })}, 'Active maintainer; clear plan.', now() - interval '1 day'),
 ('${id(1)}', '${cast.admin}', 'approve', ${json({ impact: 5, fit: 4, clarity: 3 })}, '', now() - interval '20 hours'),
 ('${id(2)}', '${cast.admin}', 'reject', ${json({ impact: 2, fit: 2, clarity: 3 })}, 'Asked for more about the mentoring.', now() - interval '3 hours');
insert into application_notes (application_id, author_address, body, created_at) values
 ('${id(1)}', '${cast.admin}', 'Checked the translation repository: 40 merged pull requests this year.', now() - interval '1 day');
insert into check_ins (member_address, created_at) values
 ('${cast.applicant}', now() - interval '1 day'), ('${addr(4)}', now() - interval '2 days'), ('${addr(6)}', now() - interval '2 days'),
 ('${addr(4)}', now() - interval '5 days'), ('${cast.applicant}', now() - interval '9 days');
insert into webhook_deliveries (event_id, event_type, data, occurred_at, url_hash, url_host, status, attempts, last_status, last_error, next_attempt_at, delivered_at) values
 ('${id(11)}', 'application.submitted', '{}', now() - interval '2 hours', 'a', 'automation.example-community-tools.org', 'delivered', 1, 200, null, now(), now()),
 ('${id(11)}', 'application.submitted', '{}', now() - interval '2 hours', 'b', 'discord.com', 'failed', 12, 500, 'receiver answered 500 Internal Server Error', now(), null),
 ('${id(12)}', 'application.decided', '{}', now() - interval '1 hour', 'a', 'automation.example-community-tools.org', 'pending', 2, null, 'timed out after 10 seconds', now() + interval '1 hour', null);
drop table t;
`;
}

export interface VisualDatabase {
	/** PGLITE_DATA_DIR for the server. */
	env: Record<string, string>;
	drop(): void;
}

const folder = (dir: string): VisualDatabase => ({
	env: { PGLITE_DATA_DIR: dir },
	drop: () => rmSync(dir, { recursive: true, force: true })
});

/**
 * Two migrated PGlite folders: a new, empty community and a copy holding the seed, both copies of the data
 * folder the built server migrated once for the run (tests/helpers/server.ts): migrating here again, in
 * each Playwright worker, made visual.spec.ts cost 88 CPU seconds against 72 (bench/README.md, CI time).
 */
export async function visualDatabases(cast: VisualCast): Promise<{ seeded: VisualDatabase; new: VisualDatabase }> {
	const migrated = await migratedDataFolder();
	const fresh = mkdtempSync(path.join(tmpdir(), 'portal-visual-'));
	cpSync(migrated, fresh, { recursive: true });
	const seededDir = mkdtempSync(path.join(tmpdir(), 'portal-visual-'));
	cpSync(fresh, seededDir, { recursive: true });
	const seeded = new PGlite(seededDir, { extensions: { pg_trgm } });
	try {
		await seeded.exec(seedSql(cast));
	} finally {
		await seeded.close();
	}
	return { seeded: folder(seededDir), new: folder(fresh) };
}
