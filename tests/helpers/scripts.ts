// Runs the repository's scripts as `npm run` would, for the tests of scripts/.
import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve('.');

export interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a script as `npm run` would (node, from the repository root), without blocking this process. */
export function runScript(script: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Run> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [script, ...args], {
			cwd,
			env: { PATH: process.env.PATH ?? '', ...env },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
		child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}
