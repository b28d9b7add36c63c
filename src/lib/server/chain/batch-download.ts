import { formatUnits, getAddress } from 'viem';
import { UUID } from '$lib/platform/limits';
import type { Database } from '../db/client';
import type { Config } from '../platform/config';
import { safeBatch, type SafeBatchFile } from './batches';
import {
	BATCH_MAX,
	countWaiting,
	missingSettings,
	stepWord,
	waitingFor,
	type Step,
	type WaitingApplication
} from './steps';
import { m } from '$lib/paraglide/messages';
import { settingList } from '$lib/applications/admin-words';

export type BatchRefusal = { ok: false; status: 400 | 409; code: string; message: string };

/** The `ids` of a batch request: none (every waiting application), or 1 to 100 UUIDs. */
export function parseBatchIds(params: URLSearchParams): { ok: true; ids: string[] | undefined } | BatchRefusal {
	const raw = params.getAll('ids');
	if (raw.length === 0) return { ok: true, ids: undefined };
	if (raw.length > BATCH_MAX)
		return invalid(`A batch holds at most ${BATCH_MAX} applications; ${raw.length} were named.`);
	if (!raw.every((id) => UUID.test(id))) return invalid('Every ids value must be an application id (a UUID).');
	return { ok: true, ids: [...new Set(raw.map((id) => id.toLowerCase()))] };
}

const invalid = (message: string): BatchRefusal => ({ ok: false, status: 400, code: 'invalid_request', message });

/**
 * The applications a batch for `step` would hold, and how many wait in all (a batch of every waiting
 * one holds the oldest BATCH_MAX and says so); or why there is no batch (settings missing, ids not waiting).
 */
export async function batchApplications(
	db: Database,
	config: Config,
	step: Step,
	params: URLSearchParams
): Promise<{ ok: true; waiting: WaitingApplication[]; total: number } | BatchRefusal> {
	const missing = missingSettings(config, step, 'batch');
	if (missing.length)
		return {
			ok: false,
			status: 400,
			code: 'not_configured',
			message: m.admin_batch_needs({ step: stepWord(step), names: settingList(missing), count: missing.length })
		};
	const parsed = parseBatchIds(params);
	if (!parsed.ok) return parsed;
	const waiting = await waitingFor(db, step, { ids: parsed.ids });
	if (parsed.ids) {
		const found = new Set(waiting.map((w) => w.id));
		const other = parsed.ids.filter((id) => !found.has(id));
		if (other.length) return invalid(m.admin_batch_not_waiting({ step: stepWord(step), ids: other.join(', ') }));
	}
	if (!waiting.length)
		return {
			ok: false,
			status: 409,
			code: 'nothing_waiting',
			message: m.admin_batch_nothing_waiting({ step: stepWord(step) })
		};
	const total = !parsed.ids && waiting.length === BATCH_MAX ? await countWaiting(db, step) : waiting.length;
	return { ok: true, waiting, total };
}

/** What a batch of the oldest waiting applications says when more wait than it holds. */
export const moreWaiting = (held: number, total: number) =>
	total > held ? m.admin_batch_more_waiting({ held, total, next: Math.min(BATCH_MAX, total - held) }) : '';

/** The batch file's download: the file and its name. */
export async function batchDownload(
	db: Database,
	config: Config,
	step: Step,
	params: URLSearchParams
): Promise<{ ok: true; file: SafeBatchFile; filename: string } | BatchRefusal> {
	const found = await batchApplications(db, config, step, params);
	if (!found.ok) return found;
	const file = safeBatch(config, step, found.waiting);
	const more = moreWaiting(found.waiting.length, found.total);
	if (more) file.meta.description += ` ${more}`;
	const day = new Date(file.createdAt).toISOString().slice(0, 10);
	return { ok: true, file, filename: `${step}-batch-${day}-${found.waiting.length}.json` };
}

/** One step's batch as the admin reads it before downloading: recipients, amounts, the call. */
export interface BatchPreview {
	step: Step;
	/** Why there is no batch (settings missing, ids not waiting), or null. */
	refusal: string | null;
	/** How many more wait than the batch holds ("The oldest 100 of 2345 waiting: ..."), or ''. */
	more: string;
	recipients: { id: string; displayName: string; address: string; state: string }[];
	/** The call the Safe makes: "addToAllowlist(address[]) on 0x…" or "transfer on 0x… (COMM)". */
	call: string;
	/** Per recipient, in base units and in tokens (distribution only). */
	amount: { baseUnits: string; tokens: string; symbol: string } | null;
	transactions: number;
}

/** Both steps' batches for the same `ids` (or every waiting application). */
export async function batchPreviews(db: Database, config: Config, params: URLSearchParams): Promise<BatchPreview[]> {
	const f = config.fulfilment;
	return Promise.all(
		(['allowlist', 'distribution'] as const).map(async (step): Promise<BatchPreview> => {
			const found = await batchApplications(db, config, step, params);
			const recipients = found.ok
				? found.waiting.map((w) => ({
						id: w.id,
						displayName: w.displayName,
						address: getAddress(w.applicantAddress),
						state: w.state
					}))
				: [];
			const allowlistCall = f.allowlistFunction && f.allowlistContract;
			const call =
				step === 'allowlist'
					? allowlistCall
						? `${f.allowlistFunction!.abi.name}(${f.allowlistFunction!.abi.inputs[0]!.type}) on ${getAddress(f.allowlistContract!)}`
						: ''
					: config.token
						? `transfer(address,uint256) on ${getAddress(config.token.address)}`
						: '';
			const amount =
				step === 'distribution' && config.token && f.tokenGrantAmount
					? {
							baseUnits: String(f.tokenGrantAmount),
							tokens: formatUnits(f.tokenGrantAmount, config.token.decimals),
							symbol: config.token.symbol
						}
					: null;
			const transactions = step === 'allowlist' && f.allowlistFunction?.takesArray ? 1 : recipients.length;
			return {
				step,
				refusal: found.ok ? null : found.message,
				more: found.ok ? moreWaiting(found.waiting.length, found.total) : '',
				recipients,
				call,
				amount,
				transactions: recipients.length ? transactions : 0
			};
		})
	);
}
