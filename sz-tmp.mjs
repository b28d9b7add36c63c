import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
const html = readFileSync('build/prerendered/index.html', 'utf8');
const files = [...html.matchAll(/(?:href|import\()\s*=?\s*["']([^"']+\.js)["']/g)].map((m) => m[1]);
console.log(files.length);
const seen = new Set();
const q = [...files.map((f) => 'build/client' + f.replace(/^\./, ''))];
while (q.length) {
	const f = q.pop();
	if (seen.has(f)) continue;
	seen.add(f);
	let c;
	try {
		c = readFileSync(f, 'utf8');
	} catch {
		continue;
	}
	for (const m of c.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["']([^"']+\.js)["']/g))
		q.push(new URL(m[1], 'file:///' + f).pathname.slice(1));
}
let t = 0;
for (const f of [...seen].sort()) {
	let c;
	try {
		c = readFileSync(f);
	} catch {
		continue;
	}
	const g = gzipSync(c, { level: 9 }).length;
	t += g;
	console.log((g / 1000).toFixed(1).padStart(6), (c.length / 1000).toFixed(1).padStart(6), f);
}
console.log('total', t / 1000);
