// Global setup of the HTTP tests (vitest's `http` project and Playwright): they run build/index.js,
// so a missing or stale build would test old code; stop before any test starts.
import { existsSync } from 'node:fs';
import { BUILD_OUTPUT, isBuildCurrent } from '../../scripts/build-state.js';

export default function requireCurrentBuild(): void {
	if (!existsSync(BUILD_OUTPUT)) throw new Error(`${BUILD_OUTPUT} is missing: run npm run build`);
	if (!isBuildCurrent()) throw new Error('build/ is older than the sources: run npm run build');
}
