// The visual suite's two communities (tests/helpers/visual-seed.ts: a seeded one and a new one), their
// cast of signed-in roles, and the pages that matter in each: shared by the visual suite
// (visual.spec.ts, English) and the walk of every page in every language (locales-walk.spec.ts), both
// through this file's `test` and its `communities` fixture.
import type { Page } from '@playwright/test';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { VISUAL_IDS, visualDatabases, type VisualDatabase } from '../helpers/visual-seed';
import { admin, expect, member, other, startPortal, test as base } from './fixtures';

export const accounts = {
	applicant: member,
	admin,
	reviewer: other,
	newcomer: privateKeyToAccount(`0x${'11'.repeat(32)}`),
	rejected: privateKeyToAccount(`0x${'22'.repeat(32)}`)
} satisfies Record<string, PrivateKeyAccount>;
export type Role = keyof typeof accounts;

export type Community = 'seeded' | 'new';

export interface Shot {
	name: string;
	community: Community;
	as: Role | null;
	path: string;
	/** What brings the page into its state after loading (a refused form, say). */
	act?: (page: Page) => Promise<void>;
	/** A variant of a page shot in full elsewhere: light only, to keep the suite within its time. */
	variant?: true;
}

export const SHOTS: Shot[] = [
	{ name: 'home-visitor', community: 'seeded', as: null, path: '/' },
	{ name: 'setup-visitor', community: 'seeded', as: null, path: '/setup' },
	{ name: 'not-found', community: 'seeded', as: null, path: '/no/such/page' },
	{ name: 'apply-new', community: 'seeded', as: 'newcomer', path: '/apply' },
	{
		name: 'apply-refused',
		variant: true,
		community: 'seeded',
		as: 'newcomer',
		path: '/apply',
		async act(page) {
			// Past the browser's own checks, so the server's refusal is what shows.
			await page
				.locator('form')
				.filter({ has: page.getByRole('button', { name: /submit/i }) })
				.evaluate((f) => {
					(f as HTMLFormElement).noValidate = true;
				});
			await page.getByRole('button', { name: /submit/i }).click();
			await expect(page.getByRole('alert').first()).toBeVisible();
		}
	},
	{ name: 'apply-pending', community: 'seeded', as: 'applicant', path: '/apply' },
	{ name: 'apply-rejected', variant: true, community: 'seeded', as: 'rejected', path: '/apply' },
	{ name: 'checkin', community: 'seeded', as: 'applicant', path: '/checkin' },
	{ name: 'admin-table', community: 'seeded', as: 'admin', path: '/admin' },
	{ name: 'admin-table-empty', variant: true, community: 'new', as: 'admin', path: '/admin' },
	{ name: 'admin-application', community: 'seeded', as: 'admin', path: `/admin/applications/${VISUAL_IDS.applicant}` },
	{
		name: 'admin-application-rejected',
		variant: true,
		community: 'seeded',
		as: 'admin',
		path: `/admin/applications/${VISUAL_IDS.rejected}`
	},
	{ name: 'admin-form', community: 'seeded', as: 'admin', path: '/admin/form' },
	{ name: 'admin-form-empty', variant: true, community: 'new', as: 'admin', path: '/admin/form' },
	{ name: 'admin-form-rubric', community: 'seeded', as: 'admin', path: '/admin/form?part=rubric' },
	{ name: 'admin-form-eligibility', community: 'seeded', as: 'admin', path: '/admin/form?part=eligibility' },
	{ name: 'admin-insights', community: 'seeded', as: 'admin', path: '/admin/insights' },
	{ name: 'admin-insights-empty', variant: true, community: 'new', as: 'admin', path: '/admin/insights' },
	{ name: 'admin-webhooks', community: 'seeded', as: 'admin', path: '/admin/webhooks' },
	{ name: 'admin-webhooks-empty', variant: true, community: 'new', as: 'admin', path: '/admin/webhooks' },
	{ name: 'admin-batches', community: 'seeded', as: 'admin', path: '/admin/batches' },
	{ name: 'review-queue', community: 'seeded', as: 'reviewer', path: '/review' },
	{ name: 'review-queue-empty', variant: true, community: 'new', as: 'admin', path: '/review' },
	{ name: 'review-application', community: 'seeded', as: 'reviewer', path: `/review/${VISUAL_IDS.contested}` }
];

export interface VisualCommunities {
	servers: Record<Community, { server: RunningServer; db: VisualDatabase }>;
	/** The signed-in session of `role` on `community`'s server, signed in once. */
	cookieOf(community: Community, role: Role): Promise<string>;
	stop(): Promise<void>;
}

/** Both communities seeded and served (a PGlite database migrated, copied and seeded, and two servers). */
async function startVisualCommunities(): Promise<VisualCommunities> {
	const cast = {
		applicant: accounts.applicant.address.toLowerCase(),
		rejected: accounts.rejected.address.toLowerCase(),
		admin: accounts.admin.address.toLowerCase(),
		reviewer: accounts.reviewer.address.toLowerCase()
	};
	const databases = await visualDatabases(cast);
	const servers = {} as VisualCommunities['servers'];
	await Promise.all(
		(['seeded', 'new'] as const).map(async (community) => {
			const db = databases[community];
			const server = await startPortal({
				...db.env,
				ADMIN_ADDRESSES: admin.address,
				REVIEWER_ADDRESSES: other.address,
				REVIEW_QUORUM: '2'
			});
			servers[community] = { server, db };
		})
	);
	const cookies = new Map<string, string>();
	return {
		servers,
		async cookieOf(community, role) {
			const key = `${community} ${role}`;
			if (!cookies.has(key)) cookies.set(key, await signIn(servers[community].server.url, accounts[role]));
			return cookies.get(key)!;
		},
		async stop() {
			for (const { server, db } of Object.values(servers)) {
				await server.stop();
				db.drop();
			}
		}
	};
}

/**
 * The specs' `test` (fixtures.ts, CSP enforced) with `communities`: both communities, started once a
 * worker and stopped when it ends. Seeding and two servers take minutes on a busy machine, hence their
 * own timeout. A spec file the same worker runs next finds them running: the walks only read (a refused
 * form writes nothing), so either file sees the pages as the other would.
 */
export const test = base.extend<object, { communities: VisualCommunities }>({
	communities: [
		// eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern.
		async ({}, use) => {
			const communities = await startVisualCommunities();
			try {
				await use(communities);
			} finally {
				await communities.stop();
			}
		},
		{ scope: 'worker', timeout: 300_000 }
	]
});

/** Opens `shot` in `page` (signed in as its role), at `prefix` + its path (a locale's prefix, or none). */
export async function openShot(page: Page, communities: VisualCommunities, shot: Shot, prefix = ''): Promise<void> {
	const { server } = communities.servers[shot.community];
	if (shot.as) {
		const [name, value] = (await communities.cookieOf(shot.community, shot.as)).split(/=(.*)/s) as [string, string];
		await page.context().addCookies([{ name, value, url: server.url }]);
	}
	await page.goto(`${server.url}${prefix}${shot.path === '/' && prefix ? '' : shot.path}`);
	await page.waitForLoadState('networkidle');
	await shot.act?.(page);
}
