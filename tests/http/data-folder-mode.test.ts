import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { pgliteOptions } from '../../src/lib/server/db/embedded.js';
import { pgliteTemplate } from '../helpers/pglite-template';
import { startServer } from '../helpers/server';

// Issue 54: an existing data folder that other users may open (0755, 0777) held the database files
// PGlite writes 0666. The server makes the folder its owner's alone (0700) and says so, or, when it
// cannot change the mode, refuses to start on it in words. Real processes on real folders.
const mode = (folder: string) => statSync(folder).mode & 0o777;

/** A folder holding the migrated database (the test template), with `folderMode`. */
async function dataFolder(folderMode: number): Promise<string> {
	const folder = mkdtempSync(path.join(tmpdir(), 'portal-mode-'));
	const pg = new PGlite({ ...pgliteOptions(folder), loadDataDir: await pgliteTemplate() });
	await pg.close();
	chmodSync(folder, folderMode);
	return folder;
}

describe('a data folder open to other users', () => {
	const folders: string[] = [];
	afterAll(() => {
		for (const folder of folders) rmSync(folder, { recursive: true, force: true });
	});

	it('an existing 0755 folder is made 0700 at start, and the log says which folder and its old mode', async () => {
		const folder = await dataFolder(0o755);
		folders.push(folder);
		expect(mode(folder)).toBe(0o755);
		const server = await startServer({ env: { PGLITE_DATA_DIR: folder } });
		try {
			expect(server.output()).toMatch(/Listening on/);
			expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
			expect(mode(folder)).toBe(0o700);
			const line = server
				.output()
				.split('\n')
				.find((l) => l.includes('open to other users'));
			expect(JSON.parse(line!)).toMatchObject({
				level: 'warn',
				dataFolder: folder,
				mode: '755',
				msg: `The data folder ${folder} was open to other users (mode 755); it is now 700, its owner's alone.`
			});
			// Whatever modes PGlite gave the files inside, nobody but the owner can reach them now.
			expect(readdirSync(folder).length).toBeGreaterThan(0);
		} finally {
			await server.stop();
		}
		// A folder already closed is left as it is, without a word.
		const again = await startServer({ env: { PGLITE_DATA_DIR: folder } });
		try {
			expect(again.output()).toMatch(/Listening on/);
			expect(again.output()).not.toContain('open to other users');
		} finally {
			await again.stop();
		}
	}, 120_000);

	const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	it.runIf(asRoot)(
		'a 0777 folder the server’s user cannot change is refused in words (status 1), nothing written',
		async () => {
			const SERVICE = 4243;
			const folder = await dataFolder(0o777);
			folders.push(folder);
			const before = readdirSync(folder).sort();
			const server = await startServer({ env: { PGLITE_DATA_DIR: folder }, uid: SERVICE });
			expect(await server.exited).toBe(1);
			expect(server.output()).toContain(
				`The data folder ${folder} can be read or written by other users (mode 777) and its mode cannot be changed by this user: run chmod 700 ${folder} as its owner, or choose another folder.`
			);
			expect(mode(folder)).toBe(0o777);
			expect(readdirSync(folder).sort()).toEqual(before);
			expect(statSync(folder).uid).not.toBe(SERVICE);
		},
		120_000
	);
});
