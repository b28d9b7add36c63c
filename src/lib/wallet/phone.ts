/** A phone or tablet, where wallets live in apps rather than browser extensions. */
export function isPhone(nav: Pick<Navigator, 'userAgent'> & { userAgentData?: { mobile?: boolean } }): boolean {
	return nav.userAgentData?.mobile === true || /Android|iPhone|iPad|iPod|Mobile/i.test(nav.userAgent);
}
