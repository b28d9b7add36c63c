// db:backup and db:restore carry the files of the embedded default (issue 58; docs/operating.md "Backups"):
// an application with a file, backed up by the running server (asked on its socket) and by the command
// itself with no server, restored into a fresh data folder, serves the same bytes at /files/<id>. A
// backup whose carried file was changed is refused before anything is written.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm } from '../helpers/forms';
import { runScript } from '../helpers/scripts';
import { startServer, type RunningServer } from '../helpers/server';
import { signIn, testAccount } from '../helpers/siwe';

const admin = testAccount('admin');
const applicant = privateKeyToAccount(generatePrivateKey());
const work = mkdtempSync(path.join(tmpdir(), 'portal-backup-files-'));
/** A data folder as `npm start` lays it out: pglite/ and files/ (FILES_DIR's default) under PORTAL_DATA_DIR. */
const folder = (name: string) => ({
	PORTAL_DATA_DIR: path.join(work, name),
	PGLITE_DATA_DIR: path.join(work, name, 'pglite')
});
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
// A PDF of its own, big enough for several lines of the backup (48 KiB of it a line).
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(generatePrivateKey()), Buffer.alloc(150 * 1024, 42)]);

let server: RunningServer | null = null;
let fileId: string;
const start = async (env: Record<string, string>) => {
	server = await startServer({ env: { ...env, ADMIN_ADDRESSES: admin.address } });
	return server;
};
const stop = async () => {
	await server?.stop();
	server = null;
};

/** `/files/<id>` as the applicant sees it, in a portal started on `env`'s folder. */
async function servedBytes(env: Record<string, string>) {
	const portal = await start(env);
	try {
		const answer = await fetch(`${portal.url}/files/${fileId}`, {
			headers: { cookie: await signIn(portal.url, applicant) }
		});
		expect(answer.status).toBe(200);
		return Buffer.from(await answer.arrayBuffer());
	} finally {
		await stop();
	}
}

beforeAll(async () => {
	const portal = await start(folder('original'));
	const saved = await postForm(
		`${portal.url}/admin/form?/save`,
		{
			questionCount: '1',
			'questions.0.key': 'portfolio',
			'questions.0.label': 'Your portfolio',
			'questions.0.type': 'file',
			'questions.0.accept': ['application/pdf'],
			'questions.0.files': '1',
			'questions.0.size': '1'
		},
		{ cookie: await signIn(portal.url, admin) }
	);
	expect(saved.status).toBe(303);
	const sent = await postForm(
		`${portal.url}/apply`,
		{
			displayName: 'Ada',
			motivation: 'Docs.',
			'answers.portfolio': new File([new Uint8Array(PDF)], 'cv.pdf', { type: 'application/pdf' })
		},
		{ cookie: await signIn(portal.url, applicant) }
	);
	expect(sent.status).toBe(303);
	const adminCookie = await signIn(portal.url, admin);
	const table = await (await fetch(`${portal.url}/admin`, { headers: { cookie: adminCookie } })).text();
	const application = /href="\/admin\/applications\/([0-9a-f-]{36})"/.exec(table)![1]!;
	const detail = await fetch(`${portal.url}/admin/applications/${application}`, { headers: { cookie: adminCookie } });
	fileId = /href="\/files\/([0-9a-f-]{36})"/.exec(await detail.text())![1]!;
}, 240_000);
afterAll(async () => {
	await stop();
	rmSync(work, { recursive: true, force: true });
});

describe('backups carry the files of FILES_DIR', { timeout: 240_000 }, () => {
	const whileRunning = path.join(work, 'running.sql.gz');
	const stopped = path.join(work, 'stopped.sql.gz');

	it('made by the running server and by the command alone, each holds the file', async () => {
		const byServer = await runScript('scripts/db-backup.js', ['--out', whileRunning], folder('original'));
		expect(byServer.stderr).toBe('');
		expect(byServer.stdout).toMatch(/A server holds .*asking it/);
		expect(byServer.stdout).toMatch(/, 1 files of 150 KiB,/);
		await stop();
		const alone = await runScript('scripts/db-backup.js', ['--out', stopped], folder('original'));
		expect(alone.stderr).toBe('');
		expect(alone.stdout).toMatch(/, 1 files of 150 KiB,/);
	});

	it.each([
		['the running server’s backup', 'restored-a', () => whileRunning],
		['the command’s own backup', 'restored-b', () => stopped]
	])('%s, restored into a fresh data folder: /files/<id> serves the same bytes', async (_, name, file) => {
		const restored = await runScript('scripts/db-restore.js', [file()], folder(name));
		expect(restored.stderr).toBe('');
		expect(restored.stdout).toMatch(/1 files into .*files\./);
		// Nothing left in the staging folder.
		expect(readdirSync(path.join(work, name, 'files', '.incoming'))).toEqual([]);
		expect(sha(await servedBytes(folder(name)))).toBe(sha(PDF));
	});

	it('a backup whose file was changed is refused before anything is written', async () => {
		const lines = gunzipSync(readFileSync(stopped)).toString('utf8').split('\n');
		const at = lines.findIndex((l) => l.startsWith('-- file: '));
		const [head, base64] = [lines[at]!.slice(0, 9 + 64 + 1), lines[at]!.slice(9 + 64 + 1)];
		const bytes = Buffer.from(base64, 'base64');
		bytes[100] = bytes[100]! ^ 1;
		lines[at] = head + bytes.toString('base64');
		const changed = path.join(work, 'changed.sql.gz');
		writeFileSync(changed, gzipSync(lines.join('\n')));
		const refused = await runScript('scripts/db-restore.js', [changed], folder('restored-c'));
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/is damaged/);
		expect(existsSync(path.join(work, 'restored-c', 'files'))).toBe(false);
		expect(existsSync(path.join(work, 'restored-c', 'pglite'))).toBe(false);
	});
});
