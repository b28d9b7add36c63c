/**
 * Runs inside the PDF preview's frame only (pdf-preview.ts): an opaque origin, sandboxed to scripts. It
 * takes the bytes from the page that framed it, and draws the pages with PDF.js onto canvases as they
 * scroll into view. PDF.js runs here on the frame's thread (its "fake worker"): a worker of the portal's
 * origin could not be started from an opaque one. The PDF's own scripts never run: no scripting, no
 * annotation or form layer (so no links), and no `eval` (isEvalSupported: false; the policy forbids it too).
 */
import { getDocument } from 'pdfjs-dist';
import * as pdfWorker from 'pdfjs-dist/build/pdf.worker.mjs';
import { FRAME_DRAWN, FRAME_FAILED, FRAME_READY, PDF_BYTES } from './pdf-preview';

// PDF.js takes its worker's code from here rather than from a URL.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfWorker;

const root = document.documentElement;
const pagesBox = document.getElementById('pages')!;
const parentOrigin = root.dataset.origin ?? '';
const pageLabel = root.dataset.pageLabel ?? '';
/** Page numbers as the page's language writes them (Arabic-Indic digits in `ar`). */
const number = new Intl.NumberFormat(root.lang || undefined);
/** A page is drawn at most this wide (CSS pixels), however wide the frame (as its style says). */
const MAX_WIDTH = 1200;

const tell = (message: Record<string, unknown>) => window.parent.postMessage(message, '*');

async function draw(bytes: ArrayBuffer): Promise<void> {
	const pdf = await getDocument({
		data: new Uint8Array(bytes),
		isEvalSupported: false,
		enableXfa: false,
		stopAtErrors: false,
		verbosity: 0
	}).promise;
	const first = await pdf.getPage(1);
	const firstSize = first.getViewport({ scale: 1 });
	const slots = Array.from({ length: pdf.numPages }, (_, i) => {
		const canvas = document.createElement('canvas');
		canvas.setAttribute('role', 'img');
		canvas.setAttribute(
			'aria-label',
			pageLabel.replace('{page}', number.format(i + 1)).replace('{pages}', number.format(pdf.numPages))
		);
		// As wide as the frame (the style in pdf-preview.ts); until drawn, each page takes the first
		// page's shape, so the scroll bar is right from the start.
		canvas.style.aspectRatio = `${firstSize.width} / ${firstSize.height}`;
		canvas.dataset.page = String(i + 1);
		pagesBox.append(canvas);
		return canvas;
	});
	const drawn = new Set<number>();
	const drawPage = async (n: number) => {
		if (drawn.has(n)) return;
		drawn.add(n);
		const page = n === 1 ? first : await pdf.getPage(n);
		const size = page.getViewport({ scale: 1 });
		const canvas = slots[n - 1]!;
		canvas.style.aspectRatio = `${size.width} / ${size.height}`;
		// Drawn for the width it has now (sharp on a high-density screen); a later resize only scales it.
		const scale = (Math.min(MAX_WIDTH, canvas.clientWidth) / size.width) * Math.min(window.devicePixelRatio || 1, 2);
		const viewport = page.getViewport({ scale });
		canvas.width = Math.floor(viewport.width);
		canvas.height = Math.floor(viewport.height);
		await page.render({ canvas, viewport }).promise;
		page.cleanup();
	};
	await drawPage(1);
	tell({ type: FRAME_DRAWN, pages: pdf.numPages });
	// The others as they come near the view: a long PDF costs only the pages looked at.
	const observer = new IntersectionObserver(
		(entries) => {
			for (const entry of entries)
				if (entry.isIntersecting) {
					observer.unobserve(entry.target);
					void drawPage(Number((entry.target as HTMLElement).dataset.page)).catch(() => undefined);
				}
		},
		{ root: pagesBox, rootMargin: '100% 0px' }
	);
	for (const canvas of slots.slice(1)) observer.observe(canvas);
}

let started = false;
window.addEventListener('message', (event: MessageEvent) => {
	// Only the page that framed this document, once.
	if (started || event.source !== window.parent || event.origin !== parentOrigin) return;
	const data = event.data as { type?: unknown; bytes?: unknown };
	if (data?.type !== PDF_BYTES || !(data.bytes instanceof ArrayBuffer)) return;
	started = true;
	draw(data.bytes).catch(() => tell({ type: FRAME_FAILED }));
});
tell({ type: FRAME_READY });
