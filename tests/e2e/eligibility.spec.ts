import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RunningServer } from '../helpers/server';

import { startEligibilityChain, type EligibilityChain } from '../helpers/eligibility-chain';
import { admin, expect, pageAs, screenshots, startPortal, tabTo, test } from './fixtures';

// Eligibility on chain in Chromium, keyboard only: an admin sets "hold at least 100 COMM or one
// Membership NFT" on /admin/form, a non-holder is told what is missing, a holder applies, and the
// admin checks the evidence again on the application page; axe on each page.
let server: RunningServer;
let evm: EligibilityChain;

// Four pages, ten screenshots and axe on each against a local chain: 37 s alone, past 60 s in a loaded CI run.
test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
	evm = await startEligibilityChain();
	server = await startPortal({ ADMIN_ADDRESSES: admin.address, POLYGON_RPC_URL: evm.chain.url });
});
test.afterAll(async () => {
	await server?.stop();
	await evm?.close();
});

test('an admin sets the requirements with the keyboard; a non-holder is told what is missing; a holder applies; the admin checks again', async ({
	browser
}, testInfo) => {
	const page = await pageAs(browser, server, admin);
	await page.goto(`${server.url}/admin/form?part=eligibility`);
	await expect(page.getByText('No requirements: anyone signed in may apply.')).toBeVisible();
	await page.waitForFunction(() => document.querySelector('#eligibility button[value="add"]') !== null);

	// Rule 1: ERC-20 (the first kind), 100 tokens, labelled.
	await tabTo(page, '#eligibility button[value="add"]');
	await page.keyboard.press('Enter');
	await expect(page.locator('[name="rules.0.kind"]')).toBeFocused();
	await tabTo(page, '[name="rules.0.contract"]');
	await page.keyboard.type(evm.coin);
	await tabTo(page, '[name="rules.0.min"]');
	await page.keyboard.type('100');
	await tabTo(page, '[name="rules.0.label"]');
	await page.keyboard.type('Hold 100 COMM');

	// Rule 2: ERC-721 (the second kind), one NFT.
	await tabTo(page, '#eligibility button[value="add"]');
	await page.keyboard.press('Enter');
	await expect(page.locator('[name="rules.1.kind"]')).toBeFocused();
	await page.keyboard.press('ArrowDown');
	await expect(page.locator('[name="rules.1.kind"]')).toHaveValue('erc721');
	await tabTo(page, '[name="rules.1.contract"]');
	await page.keyboard.type(evm.nft);
	await tabTo(page, '[name="rules.1.min"]');
	await page.keyboard.type('1');

	// Either one is enough.
	await tabTo(page, 'input[name="mode"]');
	await page.keyboard.press('ArrowDown');
	await expect(page.locator('input[name="mode"][value="any"]')).toBeChecked();

	await tabTo(page, '#eligibility button.primary');
	await page.keyboard.press('Enter');
	await expect(page.getByText('Requirements saved as a new version.')).toBeVisible();
	await expect(page.locator('[name="rules.0.min"]')).toHaveValue('100');
	await screenshots(page, testInfo, 'eligibility-editor');

	// A member without either sees it before writing, then is refused with the numbers.
	const stranger = privateKeyToAccount(generatePrivateKey());
	const memberPage = await pageAs(browser, server, stranger);
	await memberPage.goto(`${server.url}/apply`);
	await expect(memberPage.getByText('does not meet the requirements yet')).toBeVisible();
	await expect(memberPage.getByText('Hold 100 COMM: you hold 0 COMM')).toBeVisible();
	await screenshots(memberPage, testInfo, 'eligibility-apply-banner');
	await tabTo(memberPage, '[name="displayName"]');
	await memberPage.keyboard.type('Stranger');
	await tabTo(memberPage, '[name="motivation"]');
	await memberPage.keyboard.type('Let me in.');
	await tabTo(memberPage, 'button[type="submit"].primary');
	await memberPage.keyboard.press('Enter');
	await expect(memberPage.getByRole('alert')).toContainText('Hold 100 COMM: you hold 0 COMM (not enough)');

	// A holder of the NFT applies in one go.
	const holder = privateKeyToAccount(generatePrivateKey());
	await evm.mintNft(holder.address);
	const holderPage = await pageAs(browser, server, holder);
	await holderPage.goto(`${server.url}/apply`);
	await expect(holderPage.getByText('Your address meets the requirements')).toBeVisible();
	await tabTo(holderPage, '[name="displayName"]');
	await holderPage.keyboard.type('Holder');
	await tabTo(holderPage, '[name="motivation"]');
	await holderPage.keyboard.type('I hold the NFT.');
	await tabTo(holderPage, 'button[type="submit"].primary');
	await holderPage.keyboard.press('Enter');
	await expect(holderPage.getByText('Waiting for a reviewer.')).toBeVisible();

	// The admin reads the evidence, the holder receives 150 COMM, and "Check again now" shows it beside.
	await page.goto(`${server.url}/admin?q=${holder.address}`);
	await page.locator(`a[href^="/admin/applications/"]`).first().click();
	await expect(page.getByText('At submission the address qualified')).toBeVisible();
	await evm.giveCoin(holder.address, 150n * 10n ** 18n);
	await tabTo(page, 'form[action="?/eligibility"] button');
	await page.keyboard.press('Enter');
	await expect(page.getByText(/Now it qualifies \(block \d+/)).toBeVisible();
	await expect(page.getByRole('cell', { name: /150 COMM ✓ met/ })).toBeVisible();
	await screenshots(page, testInfo, 'eligibility-evidence');
});
