import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { randomTxHash } from '../helpers/members';
import { startFakeRpc, type FakeRpc } from '../helpers/rpc';
import type { RunningServer } from '../helpers/server';
import { signIn } from '../helpers/siwe';
import { admin, expect, screenshots, startPortal, test } from './fixtures';

// Tx hashes checked on a chain-137 JSON-RPC on loopback, through the application page with
// JavaScript (enhanced forms): a refusal shows at the field, a verified hash says so in the result.
const hashes = { success: randomTxHash(), reverted: randomTxHash(), unknown: randomTxHash() };
let rpc: FakeRpc;
let server: RunningServer;
let id: string;

test.beforeAll(async () => {
	rpc = await startFakeRpc({ transactions: { [hashes.success]: 'success', [hashes.reverted]: 'reverted' } });
	server = await startPortal({ ADMIN_ADDRESSES: admin.address, POLYGON_RPC_URL: rpc.url });
	const member = privateKeyToAccount(generatePrivateKey());
	const post = async (path: string, fields: Record<string, string>, cookie: string) =>
		fetch(`${server.url}${path}`, {
			method: 'POST',
			body: new URLSearchParams(fields),
			headers: { cookie, origin: server.url, accept: 'text/html' },
			redirect: 'manual'
		});
	await post('/apply', { displayName: 'Chain Checker', motivation: 'Receipts' }, await signIn(server.url, member));
	const cookie = await signIn(server.url, admin);
	const table = await (await fetch(`${server.url}/admin?q=${member.address}`, { headers: { cookie } })).text();
	id = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(table)![1]!;
	expect(
		(await post(`/admin/applications/${id}?/transition`, { field: 'review', to: 'approved', confirm: 'yes' }, cookie))
			.status
	).toBe(303);
});
test.afterAll(async () => {
	await server?.stop();
	await rpc?.close();
});

test('unknown and reverted hashes are refused at the field; a successful one is recorded as verified', async ({
	browser
}, testInfo) => {
	const cookie = await signIn(server.url, admin);
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	const [name, value] = cookie.split(/=(.*)/s) as [string, string];
	await context.addCookies([{ name, value, url: server.url }]);
	const page = await context.newPage();
	await page.goto(`${server.url}/admin/applications/${id}`);
	const main = page.getByRole('main');
	// Final moves ask first (a dialog with JavaScript): confirm it.
	const confirm = () => page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();

	const allowlist = main.getByRole('group', { name: 'Allowlist: Waiting to be added' });
	await allowlist.getByLabel('Transaction hash').fill(hashes.unknown);
	await allowlist.getByRole('button', { name: 'Record added to allowlist' }).click();
	await confirm();
	await expect(
		allowlist.locator('p.error', { hasText: 'Chain 137 (Polygon) does not know this transaction hash.' })
	).toBeVisible();
	await expect(allowlist.getByLabel('Transaction hash')).toHaveValue(hashes.unknown);
	await expect(allowlist.getByLabel('Transaction hash')).toHaveAttribute('aria-invalid', 'true');
	// Announced: the form's alert, its summary linking the field (issue 61), and focus on the field with the
	// chain's answer as its description.
	await expect(allowlist.getByRole('alert')).toContainText('Some fields need attention.');
	await expect(allowlist.getByRole('alert').getByRole('link', { name: 'Transaction hash' })).toHaveAttribute(
		'href',
		`#${await allowlist.getByLabel('Transaction hash').getAttribute('id')}`
	);
	await expect(allowlist.getByLabel('Transaction hash')).toBeFocused();
	await expect(allowlist.getByLabel('Transaction hash')).toHaveAccessibleDescription(
		/does not know this transaction hash/
	);

	const distribution = main.getByRole('group', { name: 'Token distribution: Waiting to be sent' });
	await distribution.getByLabel('Transaction hash').fill(hashes.reverted);
	await distribution.getByRole('button', { name: 'Record token sent' }).click();
	await confirm();
	await expect(
		distribution.locator('p.error', { hasText: 'This transaction reverted on chain 137 (Polygon)' })
	).toBeVisible();
	await expect(main.getByText('History (2)')).toBeVisible();

	await allowlist.getByLabel('Transaction hash').fill(hashes.success);
	await allowlist.getByRole('button', { name: 'Record added to allowlist' }).click();
	await confirm();
	await expect(main.getByText('Allowlist: added')).toBeVisible();
	await expect(page.getByRole('status').locator('p')).toContainText(
		'Recorded Chain Checker as added to the allowlist. Tx hash verified on chain 137.'
	);
	await expect(page.getByRole('status').locator('p')).toBeFocused();
	const entry = main.getByRole('listitem').filter({ hasText: hashes.success });
	await expect(entry.getByText('(verified on chain 137)')).toBeVisible();
	await screenshots(page, testInfo, 'admin-tx-verified');
	await context.close();
});
