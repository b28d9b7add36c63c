/** Web Push and e-mail for applicants (docs/notifications.md, docs/configuration.md). */
export interface NotificationConfig {
	/** The portal's public origin, for links in push messages and e-mails (ORIGIN, else the first SIWE domain). */
	origin: string;
	/** VAPID_* (RFC 8292); null when unset: push is not offered. */
	push: { publicKey: string; privateKey: string; subject: string } | null;
	/** PUSH_SERVICE_ORIGINS: what a subscription's endpoint may point at; `https://*.x` entries match any subdomain. */
	pushServiceOrigins: string[];
	/** SMTP_URL and MAIL_FROM; null when unset: e-mail is not offered. Never printed (the URL holds credentials). */
	mail: { smtpUrl: string; from: string } | null;
}

export const DEFAULT_PUSH_SERVICE_ORIGINS = [
	'https://fcm.googleapis.com',
	'https://updates.push.services.mozilla.com',
	'https://web.push.apple.com',
	'https://*.notify.windows.com'
];

type Problems = { variable: string; problem: string }[];

const base64urlBytes = (s: string) => (/^[A-Za-z0-9_-]+$/.test(s) ? Buffer.from(s, 'base64url').length : 0);
const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

/** Why a PUSH_SERVICE_ORIGINS entry is refused, or null. */
function originProblem(entry: string): string | null {
	const wildcard = entry.startsWith('https://*.');
	let url: URL;
	try {
		url = new URL(wildcard ? entry.replace('*.', 'wildcard.') : entry);
	} catch {
		return `"${entry}" is not an origin`;
	}
	if (url.origin !== (wildcard ? entry.replace('*.', 'wildcard.') : entry).replace(/\/$/, ''))
		return `"${entry}" is not an origin (scheme://host[:port], no path)`;
	if (url.protocol === 'http:' && !isLoopback(url.hostname))
		return `"${entry}" uses http:// for a host that is not loopback`;
	if (url.protocol !== 'https:' && url.protocol !== 'http:') return `"${entry}" must be https://`;
	return null;
}

/** Whether a subscription endpoint's origin is one of `allowed` (a `https://*.host` entry: any subdomain of host). */
export function pushOriginAllowed(endpoint: URL, allowed: readonly string[]): boolean {
	return allowed.some((entry) =>
		entry.startsWith('https://*.')
			? endpoint.protocol === 'https:' && !endpoint.port && endpoint.hostname.endsWith(entry.slice('https://*'.length))
			: endpoint.origin === entry.replace(/\/$/, '')
	);
}

/** Reads the notification variables; adds what is wrong to `problems` (never a secret's value). */
export function loadNotificationConfig(
	env: Record<string, string | undefined>,
	siweDomains: readonly string[],
	problems: Problems
): NotificationConfig {
	const get = (name: string) => String(env[name] ?? '').trim();
	const first = siweDomains[0] ?? 'localhost';
	const origin = (get('ORIGIN') || `${isLoopback(first.replace(/:\d+$/, '')) ? 'http' : 'https'}://${first}`).replace(
		/\/+$/,
		''
	);

	let push: NotificationConfig['push'] = null;
	const [publicKey, privateKey, subject] = ['VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY', 'VAPID_SUBJECT'].map(get);
	if (publicKey || privateKey) {
		if (base64urlBytes(publicKey!) !== 65 || Buffer.from(publicKey!, 'base64url')[0] !== 4)
			problems.push({
				variable: 'VAPID_PUBLIC_KEY',
				problem: 'must be the base64url of an uncompressed P-256 point (65 bytes)'
			});
		if (base64urlBytes(privateKey!) !== 32)
			problems.push({
				variable: 'VAPID_PRIVATE_KEY',
				problem: 'must be the base64url of a P-256 private key (32 bytes)'
			});
		if (subject && !/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(subject))
			problems.push({ variable: 'VAPID_SUBJECT', problem: 'must be a mailto: or https: URL' });
		push = { publicKey: publicKey!, privateKey: privateKey!, subject: subject || origin };
	}

	const rawOrigins = get('PUSH_SERVICE_ORIGINS');
	const pushServiceOrigins = rawOrigins
		? rawOrigins
				.split(',')
				.map((e) => e.trim())
				.filter(Boolean)
		: DEFAULT_PUSH_SERVICE_ORIGINS;
	const bad = pushServiceOrigins.map(originProblem).filter(Boolean);
	if (bad.length) problems.push({ variable: 'PUSH_SERVICE_ORIGINS', problem: bad.join('; ') });

	let mail: NotificationConfig['mail'] = null;
	const [smtpUrl, from] = [get('SMTP_URL'), get('MAIL_FROM')];
	if (smtpUrl || from) {
		if (!/^smtps?:\/\/[^\s/]+/.test(smtpUrl))
			problems.push({
				variable: 'SMTP_URL',
				problem: 'must be an smtp:// or smtps:// URL (credentials in it), set with MAIL_FROM'
			});
		if (!/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(from))
			problems.push({
				variable: 'MAIL_FROM',
				problem: 'must be an address, optionally with a name ("Portal <portal@example.org>"), set with SMTP_URL'
			});
		mail = { smtpUrl, from };
	}
	return { origin, push, pushServiceOrigins, mail };
}
