/**
 * The client-side sign-out triggers on every page (docs/sign-in.md): the root layout calls this once.
 * The wallet module and the triggers load only for a signed-in member, so this file imports neither.
 */
export function watchSignOut(parts: {
	signedInAddress: () => string | null;
	onSetupPage: () => boolean;
	signOut: (reason: string) => void;
}): void {
	let watching = false;
	$effect(() => {
		if (!parts.signedInAddress() || watching) return;
		watching = true;
		void (async () => {
			const [{ getWallet }, { watchSignOutTriggers }] = await Promise.all([
				import('./wallet.svelte'),
				import('./sign-out-triggers')
			]);
			await watchSignOutTriggers(
				getWallet(),
				() => ({ signedInAddress: parts.signedInAddress(), onSetupPage: parts.onSetupPage() }),
				parts.signOut
			);
		})().catch(() => {
			// The chunk could not load (offline, new deploy): try again on the next change of session.
			watching = false;
		});
	});
}
