import { open, rm } from 'node:fs/promises';
import path from 'node:path';

/** A write that met SQLSTATE class 53 this recently keeps /healthz at 503. */
const RECENT_MS = 5000;
/** /healthz probes the disk at most this often, however often it is asked. */
const PROBE_EVERY_MS = 1500;
const PROBE_FILE = 'healthz.probe';
const PROBE_BYTES = 8192;

let lastOutOfResources = 0;
let probe: { at: number; failing: Promise<boolean> } | null = null;

/** Called where a request's database work failed with class 53 (out of disk, memory or connections). */
export function noteOutOfResources(): void {
	lastOutOfResources = Date.now();
}

/** Writes, fsyncs and removes one page-sized file in the embedded data folder: false when the disk refuses. */
async function folderTakesWrites(dataDir: string): Promise<boolean> {
	const file = path.join(dataDir, PROBE_FILE);
	try {
		const handle = await open(file, 'w', 0o600);
		try {
			await handle.write(Buffer.alloc(PROBE_BYTES));
			await handle.sync();
		} finally {
			await handle.close();
		}
		return true;
	} catch {
		return false;
	} finally {
		await rm(file, { force: true });
	}
}

/**
 * Whether writes fail now: a request met class 53 in the last few seconds, or (embedded database)
 * its folder refuses a small write. Probed at most every 1.5 s, so /healthz costs no disk work per call.
 */
export async function writesFailing(embeddedFolder: string | null): Promise<boolean> {
	if (Date.now() - lastOutOfResources < RECENT_MS) return true;
	if (!embeddedFolder) return false;
	if (!probe || Date.now() - probe.at > PROBE_EVERY_MS) {
		probe = { at: Date.now(), failing: folderTakesWrites(embeddedFolder).then((ok) => !ok) };
	}
	return probe.failing;
}
