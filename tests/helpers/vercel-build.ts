// The Vercel build the tests serve (tests/helpers/vercel-output.ts): made once with ADAPTER=vercel and
// reused while it is newer than every build input. SvelteKit's files go to a folder of their own and
// the output is moved under .test-builds/, so build/ and .svelte-kit/, which other tests run, stay as they are.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isBuildCurrent } from '../../scripts/build-state.js';

const ROOT = path.resolve('.');
export const VERCEL_OUTPUT = path.join(ROOT, '.test-builds', 'vercel-output');
const KIT_OUT = path.join('.test-builds', 'vercel-kit');
// adapter-vercel always writes here, relative to the project.
const ADAPTER_OUT = path.join(ROOT, '.vercel', 'output');

/** The path of a current Vercel build's output, building it first when there is none. */
export async function vercelBuild(): Promise<string> {
	if (isBuildCurrent(ROOT, path.relative(ROOT, path.join(VERCEL_OUTPUT, 'config.json')))) return VERCEL_OUTPUT;
	await new Promise<void>((resolve, reject) => {
		const child = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error'], {
			cwd: ROOT,
			env: { ...process.env, ADAPTER: 'vercel', PORTAL_KIT_OUT: KIT_OUT },
			stdio: ['ignore', 'ignore', 'pipe']
		});
		let errors = '';
		child.stderr.on('data', (c: Buffer) => (errors += String(c)));
		child.on('error', reject);
		child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build exited ${code}:\n${errors}`))));
	});
	rmSync(VERCEL_OUTPUT, { recursive: true, force: true });
	mkdirSync(path.dirname(VERCEL_OUTPUT), { recursive: true });
	renameSync(ADAPTER_OUT, VERCEL_OUTPUT);
	if (!existsSync(path.join(VERCEL_OUTPUT, 'config.json'))) throw new Error('the Vercel build wrote no config.json');
	return VERCEL_OUTPUT;
}
