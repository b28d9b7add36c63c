// @ts-check
// The home page's sign-out trigger (issue 61): `/` has no Svelte in the browser, so for a signed-in member
// it loads only this plain module (imported with ?url&no-inline: copied as it is, under /_app/immutable/assets/). The
// rule is sign-out-triggers.ts's for a page other than /setup: the wallet's active account becoming
// another address signs out; a disconnect or a change of network does not. It watches the injected wallet
// the member signed in with (wagmi's recent connector: an EIP-6963 wallet by its rdns, else
// window.ethereum); WalletConnect and Safe sessions have no injected provider to watch here.
// The sign-out is the header's form post with a reason: the server clears the cookie, answers 303 back to
// this page, and the page is drawn signed out with the notice why.

/**
 * An EIP-1193 provider, as far as this module uses it.
 * @typedef {{ request(args: { method: string }): Promise<unknown>; on?(event: string, listener: (data: unknown) => void): void }} Provider
 */

const script = document.querySelector('script[data-signed-in]');
const signedIn = script?.getAttribute('data-signed-in')?.toLowerCase();

/** @returns {unknown} */
function recentConnectorId() {
	try {
		const raw = localStorage.getItem('wagmi.recentConnectorId');
		return raw ? /** @type {unknown} */ (JSON.parse(raw)) : null;
	} catch {
		return null;
	}
}

/**
 * The providers wallets announce (EIP-6963), by rdns, gathered for a moment after asking.
 * @returns {Promise<Map<string, Provider>>}
 */
function announced() {
	/** @type {Map<string, Provider>} */
	const found = new Map();
	/** @param {Event} event */
	const listen = (event) => {
		const detail = /** @type {{ info?: { rdns?: unknown }, provider?: Provider } | null} */ (
			/** @type {CustomEvent<unknown>} */ (event).detail
		);
		const rdns = detail?.info?.rdns;
		if (typeof rdns === 'string' && detail?.provider) found.set(rdns, detail.provider);
	};
	window.addEventListener('eip6963:announceProvider', listen);
	window.dispatchEvent(new Event('eip6963:requestProvider'));
	return new Promise((resolve) =>
		setTimeout(() => {
			window.removeEventListener('eip6963:announceProvider', listen);
			resolve(found);
		}, 50)
	);
}

let leaving = false;
function signOut() {
	if (leaving) return;
	leaving = true;
	const form = document.createElement('form');
	form.method = 'POST';
	form.action = '/api/auth/logout';
	form.hidden = true;
	/** @type {[string, string][]} */
	const fields = [
		['next', location.pathname + location.search],
		['reason', 'account']
	];
	for (const [name, value] of fields) {
		const input = document.createElement('input');
		input.type = 'hidden';
		input.name = name;
		input.value = value;
		form.append(input);
	}
	document.body.append(form);
	form.submit();
}

/**
 * eth_accounts / accountsChanged: the first is the active account.
 * @param {unknown} accounts
 */
function check(accounts) {
	const active = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0].toLowerCase() : null;
	if (active && active !== signedIn) signOut();
}

async function watch() {
	if (!signedIn) return;
	const id = recentConnectorId();
	if (id === 'walletConnect' || id === 'safe') return;
	const injected = /** @type {{ ethereum?: Provider }} */ (/** @type {unknown} */ (window)).ethereum;
	const provider = (typeof id === 'string' ? (await announced()).get(id) : undefined) ?? injected;
	if (!provider?.on) return;
	provider.on('accountsChanged', check);
	// A change of network is no reason to sign out here; the account may have moved with it.
	provider.on('chainChanged', () => void provider.request({ method: 'eth_accounts' }).then(check, () => {}));
	// The account may have changed while no page watched (between the sign-in and this page).
	void provider.request({ method: 'eth_accounts' }).then(check, () => {});
}

void watch();
