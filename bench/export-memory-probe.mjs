// @ts-check
// Preloaded into the portal by bench/export-memory.js (`node --import ./bench/export-memory-probe.mjs ...`):
// every 50 ms, the process's own split of its memory (V8 heap used and total, external, array buffers,
// RSS) appended as one JSON line to EXPORT_PROBE_FILE, so that a download's RSS growth can be told apart
// into live heap, heap not yet collected, and memory outside the heap. Nothing else changes in the portal.
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

const file = process.env.EXPORT_PROBE_FILE;
if (file) {
	const mib = (/** @type {number} */ n) => Math.round((n / 1048576) * 10) / 10;
	setInterval(() => {
		const m = process.memoryUsage();
		const line = {
			t: Date.now(),
			rss: mib(m.rss),
			heapTotal: mib(m.heapTotal),
			heapUsed: mib(m.heapUsed),
			external: mib(m.external),
			arrayBuffers: mib(m.arrayBuffers)
		};
		appendFileSync(file, JSON.stringify(line) + '\n');
	}, 50).unref();
	/** @type {Record<number, string>} */
	const kinds = {
		[constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
		[constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
		[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
		[constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak'
	};
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) {
			const detail = /** @type {{ kind: number }} */ (/** @type {{ detail?: unknown }} */ (entry).detail);
			const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mib(s.space_used_size)]));
			appendFileSync(file, JSON.stringify({ t: Date.now(), gc: kinds[detail.kind] ?? detail.kind, spaces }) + '\n');
		}
	}).observe({ entryTypes: ['gc'] });
}
