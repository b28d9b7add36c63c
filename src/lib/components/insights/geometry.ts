/** Plain SVG arithmetic for the insights charts: drawn on the server, no chart library in the browser. */

/** The drawing area of every chart, in viewBox units (the SVG scales to its container). */
// `left` leaves room for four-digit tick labels at the phone lettering (ColumnChart's narrow styles).
export const FRAME = { width: 640, height: 232, left: 60, right: 40, top: 28, bottom: 28 } as const;

export const plotWidth = FRAME.width - FRAME.left - FRAME.right;
export const plotHeight = FRAME.height - FRAME.top - FRAME.bottom;

/**
 * A round upper bound for the y axis and its ticks (1, 2 or 5 times a power of ten per step),
 * so that the gridlines read as plain numbers; an all-zero series still gets a 0..1 axis.
 */
export function niceScale(max: number, tickCount = 4, whole = false): { max: number; ticks: number[] } {
	if (!(max > 0) || !Number.isFinite(max)) return { max: 1, ticks: [0, 1] };
	const rough = max / tickCount;
	const power = 10 ** Math.floor(Math.log10(rough));
	const nice = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
	// Counts step by at least 1: a chart of 1 application has ticks 0 and 1, not 0, 0.5 and 1.
	const step = whole ? Math.max(1, nice) : nice;
	const top = Math.ceil(max / step) * step;
	const ticks: number[] = [];
	for (let t = 0; t <= top + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
	return { max: top, ticks };
}

/** The y coordinate of `value` on an axis from 0 to `max`. */
export const yOf = (value: number, max: number) => FRAME.top + plotHeight - (value / max) * plotHeight;

/** The x coordinate of the middle of band `index` of `count`. */
export const bandCenter = (index: number, count: number) => FRAME.left + ((index + 0.5) * plotWidth) / count;

/** An x coordinate mirrored across the frame: charts drawn right to left (Arabic) run their x axis as the page reads. */
export const mirrorX = (x: number) => FRAME.width - x;

/** The width of one band of `count`, less a gap between bands. */
export const bandWidth = (count: number) => Math.max(1, (plotWidth / count) * 0.75);

/**
 * An SVG path through the points that have a value; a missing value (null) breaks the line, so
 * a week without decisions is a gap, never a fall to zero.
 */
export function linePath(values: (number | null)[], max: number): string {
	let path = '';
	let drawing = false;
	values.forEach((value, i) => {
		if (value === null) {
			drawing = false;
			return;
		}
		const point = `${bandCenter(i, values.length).toFixed(1)},${yOf(value, max).toFixed(1)}`;
		path += drawing ? ` L${point}` : `${path ? ' ' : ''}M${point}`;
		drawing = true;
	});
	return path;
}

/** Every `step`th index of `count`, and always the last: which x labels fit. */
export function labelIndexes(count: number, wanted = 7): number[] {
	if (count <= 0) return [];
	const step = Math.max(1, Math.ceil(count / wanted));
	const indexes: number[] = [];
	for (let i = count - 1; i >= 0; i -= step) indexes.unshift(i);
	return indexes;
}

/**
 * Where a chart's x axis starts so that it spans the data: at the first entry that has any, but never with
 * fewer than `min` entries (counted from the newest, last). A community with one week of applications
 * is not drawn as one column at the end of six empty months (issue 61).
 */
export function spanStart(hasData: readonly boolean[], min: number): number {
	const first = hasData.indexOf(true);
	const latest = Math.max(0, hasData.length - min);
	return first === -1 ? latest : Math.min(first, latest);
}
