// Every route and form action of the portal, as the fuzz suite (tests/http/fuzz.test.ts) sends to them.
// That suite fails when src/routes has a route or an action missing here: a new route is one line.

/** Who the suite asks as: no cookie, a signed-in member, an admin (ADMIN_ADDRESSES). */
export type Who = 'visitor' | 'member' | 'admin';

export interface FuzzRoute {
	/**
	 * The route id: its folder under src/routes (`[id]` is filled with a real application's id, `[slug]` with
	 * a real programme's slug).
	 */
	id: string;
	/** Its form actions (`default` for a page's only action) and the fields each reads. */
	actions?: Readonly<Record<string, readonly string[]>>;
	/**
	 * Its actions that read nothing of the request (no field, no query): a signed-in, same-origin post of one
	 * is the member's own honest request whatever its body, so its being carried out is no hostile write.
	 */
	inputless?: readonly string[];
	/** Fields of a JSON body it reads. */
	json?: readonly string[];
	/** Query parameters it reads. */
	query?: readonly string[];
	/** Only these see it; anyone else must get exactly what an unknown path answers. */
	shownTo?: readonly Who[];
}

const ADMINS: readonly Who[] = ['admin'];
const TABLE_QUERY = [
	...['review', 'allowlist', 'distribution', 'q', 'sort', 'after', 'before', 'eligible', 'votes'],
	// Programmes and rounds (#57)
	...['program', 'round']
];
const FORM_QUESTION = [
	'questionCount',
	...['key', 'label', 'help', 'type', 'required', 'options', 'min', 'max', 'accept', 'files', 'size'].map(
		(f) => `questions.0.${f}`
	),
	// "Show only if" (#58, docs/application-form.md)
	...['showIfKey', 'showIfEquals'].map((f) => `questions.0.${f}`)
];
// ask.<key>: a comment on one answer with a needs_info move; reapplyAfter: a rejection's date (docs/review-guide.md).
const MOVE = ['applicationId', 'field', 'to', 'reason', 'txHash', 'from', 'reapplyAfter', 'ask.motivation', 'ask.city'];
const RUBRIC_CRITERION = ['criterionCount', ...['key', 'label', 'help'].map((f) => `criteria.0.${f}`)];
// Admins are reviewers too: the suite's admin sees /review; a member and a visitor meet the unknown path.
const REVIEWERS: readonly Who[] = ['admin'];

const APPLY_FIELDS = ['displayName', 'motivation', 'contact', 'answers.city'];
// The applicant's own application (issue 58): a draft is whatever the member typed (only its size is
// checked), so any same-origin post of theirs is their own honest draft: `inputless` for the write check.
// Drafts are not among the data tables the suite counts.
const APPLY_ACTIONS = { default: APPLY_FIELDS, draft: APPLY_FIELDS, edit: APPLY_FIELDS, withdraw: ['reason'] };

export const ROUTES: readonly FuzzRoute[] = [
	{ id: '/' },
	{ id: '/setup' },
	{ id: '/apply', actions: APPLY_ACTIONS, inputless: ['draft'] },
	// A programme's own form (issue 57): the same fields as /apply.
	{ id: '/apply/[slug]', actions: APPLY_ACTIONS, inputless: ['draft'] },
	{ id: '/checkin', actions: { default: ['note'] } },
	{
		id: '/inbox',
		actions: { read: ['id'], email: ['email'], emailRemove: [] },
		inputless: ['emailRemove'],
		query: ['done']
	},
	{ id: '/inbox/verify', query: ['token'] },
	{ id: '/inbox/unsubscribe', actions: { default: [] }, query: ['token'] },
	{
		id: '/admin',
		actions: {
			transition: MOVE,
			bulk: ['applicationIds', 'field', 'to', 'reason', 'txHash', 'from', 'reapplyAfter', 'ask.motivation', 'confirm'],
			reconcile: ['step'],
			// Writing to applicants (issue 59): the selection or the filter, the words, the confirm step and its key.
			message: ['applicationIds', 'subject', 'body', 'confirm', 'sendKey', 'q', 'review']
		},
		query: [...TABLE_QUERY, 'done', 'count'],
		shownTo: ADMINS
	},
	{
		id: '/admin/applications/[id]',
		actions: { transition: MOVE, note: ['body'], eligibility: [], assign: ['reviewer'], unassign: ['reviewer'] },
		query: ['done'],
		shownTo: ADMINS
	},
	{ id: '/admin/applications.csv', query: TABLE_QUERY, shownTo: ADMINS },
	{ id: '/admin/allowlist.csv', shownTo: ADMINS },
	{
		id: '/admin/form',
		actions: {
			edit: [...FORM_QUESTION, 'op', 'newType'],
			save: FORM_QUESTION,
			rubric: RUBRIC_CRITERION,
			rubricEdit: [...RUBRIC_CRITERION, 'op'],
			eligibility: [
				'mode',
				'ruleCount',
				'op',
				...['kind', 'contract', 'id', 'min', 'unit', 'label'].map((f) => `rules.0.${f}`)
			]
		},
		query: ['saved', 'program'],
		shownTo: ADMINS
	},
	{ id: '/admin/batches', query: ['ids'], shownTo: ADMINS },
	{ id: '/admin/batches/allowlist.json', query: ['ids'], shownTo: ADMINS },
	{ id: '/admin/batches/distribution.json', query: ['ids'], shownTo: ADMINS },
	// before: the deliveries' paging, an older page's first delivery id.
	{ id: '/admin/webhooks', actions: { retry: ['deliveryId'] }, query: ['before'], shownTo: ADMINS },
	{ id: '/admin/insights', query: ['program', 'round'], shownTo: ADMINS },
	// The community's messages (issue 59): every event × locale, saved with the version the editor started from.
	{
		id: '/admin/messages',
		actions: {
			save: ['event', 'locale', 'subject', 'body', 'version'],
			preview: ['event', 'locale', 'subject', 'body', 'version'],
			reset: ['event', 'locale']
		},
		query: ['event', 'locale', 'done'],
		shownTo: ADMINS
	},
	{
		id: '/admin/reviewers',
		actions: { add: ['address'], remove: ['address'], settings: ['perApplication', 'program'] },
		query: ['done'],
		shownTo: ADMINS
	},
	// The team (issue 59): an address, a role and a programme's slug; a display name and whose.
	{
		id: '/admin/team',
		actions: {
			add: ['address', 'role', 'program'],
			remove: ['address', 'role', 'program'],
			name: ['address', 'displayName']
		},
		query: ['done'],
		shownTo: ADMINS
	},
	// The community's look (issue 59): multipart, a logo file among its texts.
	{
		id: '/admin/settings',
		actions: {
			save: ['name', 'description', 'links', 'accent', 'logo', 'removeLogo', 'name.es', 'description.ar']
		},
		query: ['done'],
		shownTo: ADMINS
	},
	{
		id: '/admin/programs',
		actions: {
			save: ['slug', 'name', 'description', 'name.es', 'description.ar'],
			archive: ['slug'],
			round: ['id', 'program', 'name', 'opensAt', 'closesAt', 'releaseMode', 'releaseAt'],
			release: ['round']
		},
		query: ['done', 'edit', 'round', 'add'],
		shownTo: ADMINS
	},
	{ id: '/review', query: ['tab', 'after'], shownTo: REVIEWERS },
	{
		id: '/review/[id]',
		actions: { vote: ['vote', 'comment', 'score.fit', 'ask.motivation'], conflict: ['reason'] },
		query: ['voted'],
		shownTo: REVIEWERS
	},
	{ id: '/api/auth/nonce' },
	{ id: '/api/auth/verify', json: ['message', 'signature'] },
	{ id: '/api/auth/logout' },
	{ id: '/api/locale-offer' },
	{ id: '/api/auth/me' },
	{ id: '/api/community-pulse' },
	{ id: '/api/programs' },
	{ id: '/api/notifications/unread' },
	{ id: '/api/push/subscriptions', json: ['endpoint', 'keys'] },
	// Vercel Cron's call with Bearer CRON_SECRET: none of the three identities has it.
	{ id: '/api/cron/webhooks', shownTo: [] },
	{ id: '/healthz' },
	// Prometheus with Bearer METRICS_TOKEN: none of the three identities has it.
	{ id: '/metrics', shownTo: [] },
	// A stored file (issue 58): `[id]` is an application's id, which is no file's: the unknown path for everyone.
	{ id: '/files/[id]', query: ['preview'], shownTo: [] },
	// The saved logo by its hash: `[sha256]` is no logo's, the unknown path for everyone.
	{ id: '/logo/[sha256]', shownTo: [] },
	{ id: '/favicon.svg' },
	{ id: '/manifest.json' }
];
