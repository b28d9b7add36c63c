import { dayText } from '$lib/applications/asks';
import type { Field } from '$lib/applications/transitions';
import type { NotificationKind } from '../db/schema';

/** What changed, as the applicant may know it: the move's own fields, never votes, scores, comments or notes. */
export interface NotificationChange {
	kind: NotificationKind;
	/** For `application.transitioned`: the field moved, its new state, and the move's reason and tx hash. */
	field?: Field;
	to?: string;
	reason?: string | null;
	txHash?: string | null;
	/** A needs_info move's comments on single answers, each with its field's label as /apply shows it. */
	asks?: readonly { label: string; comment: string }[];
	/** A rejection's first day on which the applicant may apply again. */
	reapplyAfter?: Date | null;
}

/** One notification as the inbox, a push message and an e-mail show it. */
export interface NotificationText {
	title: string;
	body: string;
	/** The page to open: the applicant's own application. */
	url: '/apply' | '/inbox';
}

// Each move in the applicant's words: the title says what happened, the sentence what it means for them.
const MOVES: Record<string, [title: string, sentence: string]> = {
	'review.pending': ['Your application is under review again', 'The reviewers will look at it again.'],
	'review.needs_info': [
		'The reviewers ask for more information',
		'Change your application on its page to answer them.'
	],
	'review.approved': ['Your application was approved', 'Welcome: the next steps are on your application’s page.'],
	'review.rejected': ['Your application was not accepted', 'The decision is on your application’s page.'],
	'allowlist.pending': ['Your allowlist step is pending again', 'It will be tried again.'],
	'allowlist.added': ['Your address was added to the allowlist', 'Your address can now take part.'],
	'allowlist.failed': ['Adding your address to the allowlist failed', 'The team will look into it.'],
	'distribution.pending': ['Your token transfer is pending again', 'It will be tried again.'],
	'distribution.sent': ['Your tokens were sent', 'They are in your wallet.'],
	'distribution.failed': ['Sending your tokens failed', 'The team will look into it.']
};

/**
 * notificationText: the one place a change becomes the words an applicant reads ("Your application
 * was approved", "The reviewers ask for more information: …", "… (tx 0x…)"). Pure: a change in, text out.
 */
export function notificationText(change: NotificationChange): NotificationText {
	if (change.kind === 'application.submitted')
		return {
			title: 'We received your application',
			body: 'The reviewers will look at it; you will be told here when anything changes.',
			url: '/apply'
		};
	if (change.kind === 'application.resubmitted')
		return {
			title: 'We received your changes',
			body: 'Your application is under review again; you will be told here when anything changes.',
			url: '/apply'
		};
	const [title, sentence] = MOVES[`${change.field}.${change.to}`] ?? [
		'Your application changed',
		'See your application’s page.'
	];
	const parts = [change.reason ? `${title}: ${change.reason}` : `${title}.`];
	if (change.txHash) parts.push(`(tx ${change.txHash})`);
	for (const { label, comment } of change.asks ?? []) parts.push(`${label}: “${comment}”`);
	parts.push(sentence);
	if (change.reapplyAfter) parts.push(`You may apply again from ${dayText(change.reapplyAfter)}.`);
	return {
		title: change.txHash ? `${title} (tx ${short(change.txHash)})` : title,
		body: parts.join(' '),
		url: '/apply'
	};
}

/** 0x1234…abcd: a hash short enough for a notification's title; the body carries it whole. */
const short = (hash: string) => `${hash.slice(0, 6)}…${hash.slice(-4)}`;
