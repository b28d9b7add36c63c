/**
 * A phone or tablet, where wallets live in apps rather than browser extensions: its browser says so
 * (user agent, client hints), or it is an iPad whose Safari says it is a Mac (a Mac has no touch
 * screen), or its only pointer is a finger (`media`: window.matchMedia's answer to a query).
 */
export function isPhone(
	nav: Pick<Navigator, 'userAgent'> & { userAgentData?: { mobile?: boolean }; maxTouchPoints?: number },
	media?: (query: string) => boolean
): boolean {
	if (nav.userAgentData?.mobile === true || /Android|iPhone|iPad|iPod|Mobile/i.test(nav.userAgent)) return true;
	if (/Macintosh/.test(nav.userAgent) && (nav.maxTouchPoints ?? 0) > 1) return true;
	return media !== undefined && media('(pointer: coarse)') && !media('(any-pointer: fine)');
}
