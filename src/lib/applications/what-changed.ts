/**
 * What a resubmission changed against the text it replaced (docs/review-guide.md "What changed"):
 * per field, the words added and removed (the `diff` library's diffWords), and whether the reviewers
 * had asked about it. Pure: the admin and reviewer pages render it as text, never as HTML.
 */
import { diffWords } from 'diff';
import { BUILT_IN_FIELDS } from './asks';
import { answerOf, answerText, type Answers, type Question } from '$lib/forms/questions';

/** One piece of a field's text: kept, added or removed. */
export interface Piece {
	text: string;
	change: 'same' | 'added' | 'removed';
}

export interface FieldChange {
	key: string;
	label: string;
	changed: boolean;
	/** The text as it now stands, in pieces; one 'same' piece when unchanged. */
	pieces: Piece[];
	/** What the reviewers asked about this field before the resubmission, or null. */
	asked: string | null;
}

/** The submitted text of one version: the built-in fields and the answers to its form version. */
export interface Version {
	displayName: string;
	motivation: string;
	contact: string | null;
	answers: Answers;
	questions: readonly Question[];
}

// Past this many changed tokens the diff is not worth reading word by word: the field shows as replaced.
const MAX_EDIT = 1500;

function pieces(before: string, after: string): Piece[] {
	if (before === after) return [{ text: after, change: 'same' }];
	const parts = diffWords(before, after, { maxEditLength: MAX_EDIT });
	if (!parts)
		return [
			{ text: before, change: 'removed' },
			{ text: after, change: 'added' }
		].filter((p) => p.text !== '') as Piece[];
	return parts.map((p) => ({ text: p.value, change: p.added ? 'added' : p.removed ? 'removed' : 'same' }));
}

/** Every field of `before` and `now`, in the order the current version asks them, then those it no longer asks. */
export function whatChanged(
	before: Version,
	now: Version,
	asks: Readonly<Record<string, string>> | null
): FieldChange[] {
	const builtIn = (Object.keys(BUILT_IN_FIELDS) as (keyof typeof BUILT_IN_FIELDS)[]).map((key) => ({
		key,
		label: BUILT_IN_FIELDS[key],
		old: before[key] ?? '',
		new: now[key] ?? ''
	}));
	const seen = new Set<string>();
	const questions = [...now.questions, ...before.questions].filter((q) => !seen.has(q.key) && seen.add(q.key));
	const answers = questions.map((q) => ({
		key: q.key,
		label: q.label,
		old: answerText(answerOf(before.answers, q.key)),
		new: answerText(answerOf(now.answers, q.key))
	}));
	return [...builtIn, ...answers].map((f) => ({
		key: f.key,
		label: f.label,
		changed: f.old !== f.new,
		pieces: pieces(f.old, f.new),
		asked: asks && Object.hasOwn(asks, f.key) ? asks[f.key]! : null
	}));
}

/** The audit rows' fields this reads. */
interface ReviewEvent {
	field: string;
	fromState: string;
	toState: string;
	asks: Record<string, string> | null;
}

/**
 * What the reviewers asked about single answers before the latest resubmission (the asks of the
 * needs_info move it answered), from the audit rows oldest first; null when none.
 */
export function asksAnswered(events: readonly ReviewEvent[]): Record<string, string> | null {
	const review = events.filter((e) => e.field === 'review');
	const resubmitted = review.findLastIndex((e) => e.fromState === 'needs_info' && e.toState === 'pending');
	if (resubmitted < 0) return null;
	return review.slice(0, resubmitted).findLast((e) => e.toState === 'needs_info')?.asks ?? null;
}
