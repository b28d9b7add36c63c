// @ts-check
// JavaScript shipped per page (gzip), standalone: `npm run build && node bench/js-size.mjs [buildDir]`.
// Exits 1 when a target of issue 5 is missed. The measuring lives in bench/scenarios/js-size.js,
// which `npm run bench` also runs.
import path from 'node:path';
import { jsSizes, localeNote } from './scenarios/js-size.js';

const { pages, siwe, locales } = await jsSizes(path.resolve(process.argv[2] ?? 'build'));
console.table(
	pages.map((p) => ({
		page: p.page,
		chunks: p.chunks,
		'raw kB': (p.raw / 1000).toFixed(1),
		'gzip kB': (p.gzip / 1000).toFixed(1),
		'target kB': Number.isFinite(p.limit) ? p.limit / 1000 : 'on choice',
		'wallet code': p.markers.length ? p.markers.join(' ') : 'none',
		ok: p.ok
	}))
);
console.log(localeNote(locales));
console.log(`siwe in browser chunks: ${siwe.length ? `YES (${siwe.join(', ')})` : 'no'}`);
process.exit(pages.every((p) => p.ok) && siwe.length === 0 ? 0 : 1);
