// @ts-check
// Lighthouse and puppeteer-core declare Node >= 22 while the portal runs on >= 20.19, so they live in
// a project of their own (bench/lighthouse/package.json), installed here when missing: the portal's
// own npm install prints no engine warning, and `npm run bench` still runs the Lighthouse scenario.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
if (!existsSync(path.join(dir, 'node_modules/lighthouse/package.json'))) {
	console.error('installing Lighthouse (npm ci --prefix bench/lighthouse) ...');
	execSync(`npm ci --prefix ${JSON.stringify(dir)} --no-audit --no-fund`, { stdio: ['ignore', 'ignore', 'inherit'] });
}
