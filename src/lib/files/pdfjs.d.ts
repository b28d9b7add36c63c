// pdfjs-dist 5.6 ships without its declarations: what pdf-frame.ts uses of it.
declare module 'pdfjs-dist' {
	export interface PageViewport {
		width: number;
		height: number;
	}
	export interface PDFPageProxy {
		getViewport(options: { scale: number }): PageViewport;
		render(options: { canvas: HTMLCanvasElement; viewport: PageViewport; transform?: number[] }): {
			promise: Promise<void>;
		};
		cleanup(): boolean;
	}
	export interface PDFDocumentProxy {
		numPages: number;
		getPage(number: number): Promise<PDFPageProxy>;
	}
	export function getDocument(source: {
		data: Uint8Array;
		isEvalSupported?: boolean;
		enableXfa?: boolean;
		stopAtErrors?: boolean;
		verbosity?: number;
	}): { promise: Promise<PDFDocumentProxy> };
}
declare module 'pdfjs-dist/build/pdf.worker.mjs' {
	export const WorkerMessageHandler: unknown;
}
