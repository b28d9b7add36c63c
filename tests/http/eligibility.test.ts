import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn, testAccount } from '../helpers/siwe';
import { startEligibilityChain, type EligibilityChain } from '../helpers/eligibility-chain';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';

// Eligibility on chain through real HTTP on the built server without JavaScript (docs/eligibility.md), against ganache on chain 137 with OpenZeppelin tokens and Multicall3
// (tests/helpers/eligibility-chain.ts), behind a counting proxy.
const admin = testAccount('admin');
const COMM = 10n ** 18n;
const newAccount = () => privateKeyToAccount(generatePrivateKey());

let portal: OwnDatabasePortal;
let base: string;
let evm: EligibilityChain;
let proxy: RpcProxy;
const login = (account: PrivateKeyAccount) => signIn(base, account);

/** "Hold at least 100 COMM or one Membership NFT", as the editor posts it without JavaScript. */
const ISSUE_RULES = () => ({
	mode: 'any',
	ruleCount: '2',
	'rules.0.kind': 'erc20',
	'rules.0.contract': evm.coin,
	'rules.0.min': '100',
	'rules.0.unit': 'token',
	'rules.0.label': 'Hold 100 COMM <b>now</b>',
	'rules.1.kind': 'erc721',
	'rules.1.contract': evm.nft,
	'rules.1.min': '1',
	'rules.1.label': 'One Membership NFT'
});

const APPLY = { displayName: 'Ada', motivation: 'I build things.' };

beforeAll(async () => {
	evm = await startEligibilityChain();
	proxy = await startRpcProxy(evm.chain.url);
	portal = await startPortalOnOwnDatabase({ ADMIN_ADDRESSES: admin.address, POLYGON_RPC_URL: proxy.url });
	base = portal.url;
}, 120_000);
afterAll(async () => {
	await portal?.stop();
	await Promise.all([proxy?.close(), evm?.close()]);
});

async function applicationIdOf(account: PrivateKeyAccount): Promise<string> {
	const page = await getPage(`${base}/admin?sort=newest&q=${account.address}`, await login(admin));
	const match = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(page.body);
	if (!match) throw new Error(`no application for ${account.address}`);
	return match[1]!;
}

describe('eligibility on chain over HTTP', () => {
	it('the editor is hidden from members; an admin adds a rule without JavaScript (nothing written) and saves the issue’s rules', async () => {
		const member = await login(newAccount());
		expect((await postForm(`${base}/admin/form?/eligibility`, ISSUE_RULES(), { cookie: member })).status).toBe(404);

		const cookie = await login(admin);
		const added = await postForm(`${base}/admin/form?/eligibility`, { ruleCount: '0', op: 'add' }, { cookie });
		expect(added.status).toBe(200);
		expect(added.body).toContain('name="rules.0.contract"');

		const saved = await postForm(`${base}/admin/form?/eligibility`, ISSUE_RULES(), { cookie });
		expect(saved.status).toBe(303);
		expect(saved.location).toBe('/admin/form?part=eligibility&saved=eligibility');
		const page = await getPage(`${base}${saved.location}`, cookie);
		// The requirements say they were saved, once: the questions' notice stays away.
		expect(textOf(page.body).match(/saved as a new version/gi)).toEqual(['saved as a new version']);
		expect(textOf(page.body)).toContain('Requirements saved as a new version.');
		// The ERC-20 minimum reads back in tokens (decimals read from the contract); the label is text, not markup.
		expect(page.body).toMatch(/name="rules\.0\.min"[^>]*value="100"|value="100"[^>]*name="rules\.0\.min"/);
		expect(page.body).toContain('Hold 100 COMM &lt;b>now&lt;/b>');
		expect(page.body).not.toContain('<b>now</b>');
	});

	it('a bad address is refused on its field with the typed values kept', async () => {
		const cookie = await login(admin);
		const refused = await postForm(
			`${base}/admin/form?/eligibility`,
			{ ...ISSUE_RULES(), 'rules.1.contract': '0x1234' },
			{ cookie }
		);
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toContain('The contract must be 0x and 40 hexadecimal characters.');
		expect(refused.body).toContain('value="0x1234"');
		// On a translated admin page the refusals are in its language (issue 61), the kind's among them.
		const es = await postForm(
			`${base}/es/admin/form?/eligibility`,
			{ ...ISSUE_RULES(), 'rules.1.contract': '0x1234' },
			{ cookie }
		);
		expect(es.status).toBe(400);
		expect(textOf(es.body)).toContain('El contrato debe ser 0x y 40 caracteres hexadecimales.');
		expect(textOf(es.body)).not.toContain('hexadecimal characters');
		const ar = await postForm(
			`${base}/ar/admin/form?/eligibility`,
			{ ...ISSUE_RULES(), 'rules.0.kind': 'erc9' },
			{ cookie }
		);
		expect(ar.status).toBe(400);
		expect(textOf(ar.body)).toContain('يجب أن يكون النوع ERC-20 أو ERC-721 أو ERC-1155.');
	});

	it('a non-holder sees before writing that they do not qualify, then 403 with the numbers; nothing is written', async () => {
		const account = newAccount();
		await evm.giveCoin(account.address, 12n * COMM);
		const cookie = await login(account);
		const before = textOf((await getPage(`${base}/apply`, cookie)).body);
		expect(before).toContain('does not meet the requirements yet');
		expect(before).toContain('Hold 100 COMM <b>now</b>: you hold 12 COMM');

		const refused = await postForm(`${base}/apply`, APPLY, { cookie });
		expect(refused.status).toBe(403);
		const text = textOf(refused.body);
		expect(text).toContain('Hold 100 COMM <b>now</b>: you hold 12 COMM (not enough)');
		expect(text).toContain('One Membership NFT: you hold 0 NFTs (not enough)');
		expect(refused.body).toContain('value="Ada"');
		expect(textOf((await getPage(`${base}/apply`, cookie)).body)).not.toContain('Waiting for a reviewer');
	});

	it('a holder applies in one go; the reviewer sees what they held at which block, and checks again after a transfer', async () => {
		const account = newAccount();
		await evm.mintNft(account.address);
		const cookie = await login(account);
		expect(textOf((await getPage(`${base}/apply`, cookie)).body)).toContain('Your address meets the requirements');
		proxy.reset();
		const sent = await postForm(`${base}/apply`, APPLY, { cookie });
		expect(sent.status).toBe(303);
		expect([...proxy.counts.values()].reduce((a, b) => a + b, 0)).toBe(1);

		const id = await applicationIdOf(account);
		const adminCookie = await login(admin);
		const page = textOf((await getPage(`${base}/admin/applications/${id}`, adminCookie)).body);
		const block = /At submission the address qualified \(block (\d+)/.exec(page)?.[1];
		expect(Number(block)).toBeGreaterThan(0);
		expect(page).toMatch(/One Membership NFT\s*1 NFT ✓ met/);
		// The reviewer's own page (/review/[id], an admin is a reviewer too) shows the same evidence.
		const review = textOf((await getPage(`${base}/review/${id}`, adminCookie)).body);
		expect(review).toContain(`At submission the address qualified (block ${block}`);

		await evm.giveCoin(account.address, 150n * COMM);
		const again = await postForm(`${base}/admin/applications/${id}?/eligibility`, {}, { cookie: adminCookie });
		expect(again.status).toBe(200);
		const text = textOf(again.body);
		expect(text).toMatch(/Now \(block (\d+)\)/);
		expect(text).toMatch(/Hold 100 COMM <b>now<\/b>\s*0 COMM ✗ not met\s*150 COMM ✓ met/);

		const filtered = (await getPage(`${base}/admin?eligible=yes&q=${account.address}`, adminCookie)).body;
		expect(filtered).toContain(`/admin/applications/${id}`);
		const none = (await getPage(`${base}/admin?eligible=no&q=${account.address}`, adminCookie)).body;
		expect(none).not.toContain(`/admin/applications/${id}`);
	});

	it('the RPC stopped: a submission answers 503 eligibility_unavailable and nothing is written', async () => {
		const account = newAccount();
		const cookie = await login(account);
		await proxy.close();
		const refused = await postForm(`${base}/apply`, APPLY, { cookie });
		expect(refused.status).toBe(503);
		expect(textOf(refused.body)).toContain('could not be checked');
		expect(textOf((await getPage(`${base}/apply`, cookie)).body)).not.toContain('Waiting for a reviewer');
	});
});
