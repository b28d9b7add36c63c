import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, textOf } from '../helpers/forms';
import { startPortalOnOwnDatabase, type OwnDatabasePortal } from '../helpers/own-database';
import { signIn, testAccount } from '../helpers/siwe';

// Files per question (issue 58; docs/http.md "/files/<id>"), through real HTTP on the built server, on
// PGlite or the Postgres server of TEST_DATABASE_URL: uploads checked from their bytes, stored whole or not
// at all, and served only to those who may see the application, with the contract's headers.
const admin = testAccount('admin');
const reviewer = testAccount('other');
const newAccount = () => privateKeyToAccount(generatePrivateKey());

let portal: OwnDatabasePortal;
let base: string;
/** The unknown path's page as `cookie`'s holder sees it (the header draws who is signed in). */
const unknownTo = async (cookie?: string) => textOf((await getPage(`${base}/no-such-page`, cookie)).body);
const filesDir = mkdtempSync(path.join(tmpdir(), 'portal-files-'));
const login = (account: PrivateKeyAccount) => signIn(base, account);
/** What a submission writes (signing in adds a member row, which is not what these tests look at). */
const written = async () => {
	const { applications, application_files } = await portal.rowCounts();
	return { applications, application_files };
};

const MIB = 1024 * 1024;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from(
	'89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
		'1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
	'hex'
);
const part = (bytes: Buffer | string) => (typeof bytes === 'string' ? bytes : new Uint8Array(bytes));
const blob = (bytes: Buffer | string, type: string) => new Blob([part(bytes)], { type });
const named = (bytes: Buffer | string, name: string, type = 'application/pdf') =>
	new File([part(bytes)], name, { type });

/** Every stored file under FILES_DIR (the temporary folder included, which must stay empty). */
function storedFiles(): string[] {
	if (!existsSync(filesDir)) return [];
	return readdirSync(filesDir, { recursive: true, withFileTypes: true })
		.filter((e) => e.isFile())
		.map((e) => path.relative(filesDir, path.join(e.parentPath, e.name)));
}

/** The temporaries under FILES_DIR/.incoming (an upload's bytes while they arrive), with their sizes. */
const incoming = () => {
	const dir = path.join(filesDir, '.incoming');
	return existsSync(dir) ? readdirSync(dir).map((name) => statSync(path.join(dir, name)).size) : [];
};
const until = async (what: () => boolean, ms = 10_000) => {
	for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20)))
		if (what()) return true;
	return false;
};

const apply = async (account: PrivateKeyAccount, files: Record<string, Blob | Blob[]>) =>
	postForm(
		`${base}/apply`,
		{ displayName: 'Ada', motivation: 'Docs.', 'answers.city': 'Lisbon', ...files },
		{ cookie: await login(account) }
	);

/** The ids of a member's stored files, oldest first. */
const fileIdsOf = async (account: PrivateKeyAccount) =>
	(
		await portal.query<{ id: string }>(
			`select f.id from application_files f join applications a on a.id = f.application_id where a.applicant_address = '${account.address.toLowerCase()}' order by f.created_at, f.name`
		)
	).map((r) => r.id);

beforeAll(async () => {
	portal = await startPortalOnOwnDatabase({
		ADMIN_ADDRESSES: admin.address,
		REVIEWER_ADDRESSES: reviewer.address,
		FILES_DIR: filesDir
	});
	base = portal.url;
	const saved = await postForm(
		`${base}/admin/form?/save`,
		{
			questionCount: '2',
			'questions.0.key': 'city',
			'questions.0.label': 'Which city?',
			'questions.0.type': 'short_text',
			'questions.1.key': 'portfolio',
			'questions.1.label': 'Your portfolio',
			'questions.1.type': 'file',
			'questions.1.accept': ['application/pdf', 'image/png'],
			'questions.1.files': '2',
			'questions.1.size': '1'
		},
		{ cookie: await login(admin) }
	);
	expect(saved.status).toBe(303);
}, 120_000);
afterAll(async () => {
	await portal?.stop();
	rmSync(filesDir, { recursive: true, force: true });
});

describe('uploading', { timeout: 120_000 }, () => {
	it('a PDF and a PNG: stored by their hash, the answer holds their ids', async () => {
		const member = newAccount();
		const sent = await apply(member, {
			'answers.portfolio': [named(PDF, 'cv.pdf'), named(PNG, 'me.png', 'image/png')]
		});
		expect(sent.status, textOf(sent.body).slice(250, 700)).toBe(303);
		const ids = await fileIdsOf(member);
		expect(ids).toHaveLength(2);
		const [answers] = await portal.query<{ answers: { portfolio: string[] } }>(
			`select answers from applications where applicant_address = '${member.address.toLowerCase()}'`
		);
		expect([...answers!.answers.portfolio].sort()).toEqual([...ids].sort());
		const rows = await portal.query<{ name: string; content_type: string; bytes: number; sha256: string }>(
			`select name, content_type, bytes, sha256 from application_files where id in ('${ids.join("','")}') order by name`
		);
		expect(rows.map((r) => [r.name, r.content_type, r.bytes])).toEqual([
			['cv.pdf', 'application/pdf', PDF.length],
			['me.png', 'image/png', PNG.length]
		]);
		expect(storedFiles().sort()).toEqual(rows.map((r) => path.join(r.sha256.slice(0, 2), r.sha256)).sort());
	});

	it.each([
		['an executable named .pdf', () => named(Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), 'cv.pdf')],
		['HTML named .pdf', () => named('<!doctype html><script>alert(1)</script>', 'cv.pdf')],
		[
			'a zip named .pdf',
			() => named(Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(1000)]), 'cv.pdf')
		],
		['plain text where PDF and PNG are accepted', () => named('just words', 'cv.txt', 'text/plain')]
	])('%s: 400 naming the question, nothing stored', async (_, file) => {
		const before = storedFiles();
		const counts = await written();
		const refused = await apply(newAccount(), { 'answers.portfolio': file() });
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toMatch(
			/Your portfolio: “cv\.(pdf|txt)” is not a file of an accepted type \(PDF, PNG\)/
		);
		expect(await written()).toEqual(counts);
		expect(storedFiles()).toEqual(before);
	});

	it('three files where two are allowed: 400, nothing stored', async () => {
		const counts = await written();
		const refused = await apply(newAccount(), {
			'answers.portfolio': [named(PDF, 'a.pdf'), named(PDF, 'b.pdf'), named(PDF, 'c.pdf')]
		});
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toContain('Your portfolio: at most 2 files.');
		expect(await written()).toEqual(counts);
	});

	it('a file over the question’s 1 MiB: 400, nothing stored', async () => {
		const counts = await written();
		const big = Buffer.concat([PDF, Buffer.alloc(MIB)]);
		const refused = await apply(newAccount(), { 'answers.portfolio': named(big, 'big.pdf') });
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toContain('Your portfolio: “big.pdf” is larger than 1 MiB.');
		expect(await written()).toEqual(counts);
	});

	it('text in the file’s place (an id of someone else’s file): 400, never taken as an id', async () => {
		const [someone] = await portal.query<{ id: string }>('select id from application_files limit 1');
		const refused = await postForm(
			`${base}/apply`,
			{ displayName: 'Ada', motivation: 'Docs.', 'answers.portfolio': someone!.id },
			{ cookie: await login(newAccount()) }
		);
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toContain('Your portfolio: attach the files themselves.');
	});

	it('a body over 25 MiB: 413 with a page that says the limit, nothing stored', async () => {
		const counts = await written();
		const before = storedFiles();
		const refused = await apply(newAccount(), { 'answers.portfolio': named(Buffer.alloc(25 * MIB + 1), 'huge.pdf') });
		expect(refused.status).toBe(413);
		expect(textOf(refused.body)).toContain('This form is over 25 MiB in all, files included');
		expect(await written()).toEqual(counts);
		expect(storedFiles()).toEqual(before);
	});

	it('an upload cut off halfway stores nothing and leaves no file behind', async () => {
		const counts = await written();
		const before = storedFiles();
		const cookie = await login(newAccount());
		const boundary = 'cut-off-boundary';
		const head = Buffer.from(
			`--${boundary}\r\nContent-Disposition: form-data; name="displayName"\r\n\r\nAda\r\n` +
				`--${boundary}\r\nContent-Disposition: form-data; name="motivation"\r\n\r\nDocs.\r\n` +
				`--${boundary}\r\nContent-Disposition: form-data; name="answers.portfolio"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`
		);
		const url = new URL(`${base}/apply`);
		await new Promise<void>((resolve) => {
			const req = request({
				host: url.hostname,
				port: url.port,
				method: 'POST',
				path: '/apply',
				headers: {
					origin: url.origin,
					cookie,
					'content-type': `multipart/form-data; boundary=${boundary}`,
					'content-length': head.length + 4 * MIB
				}
			});
			req.on('error', () => resolve());
			req.on('response', () => resolve());
			req.write(head);
			req.write(Buffer.concat([PDF, Buffer.alloc(MIB)]), () => {
				req.destroy();
				setTimeout(resolve, 500);
			});
		});
		// The bytes that arrived are streamed to a temporary (once the server has read the form's questions:
		// on a loaded machine after the cut), removed once the server sees the cut.
		await until(() => incoming().length > 0, 3000);
		expect(await until(() => incoming().length === 0)).toBe(true);
		expect((await fetch(`${base}/healthz`)).status).toBe(200);
		expect(await written()).toEqual(counts);
		expect(storedFiles()).toEqual(before);
	});
});

/**
 * A post to /apply written by hand, its file part's bytes in two halves: `between` runs after the first
 * half is written and before the second is (resolving true to send the rest and end the body, false to cut
 * the connection there).
 */
async function applyInHalves(cookie: string, file: Buffer, between: () => Promise<boolean>, chunked = false) {
	const boundary = 'halves-boundary';
	const head = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name="displayName"\r\n\r\nAda\r\n` +
			`--${boundary}\r\nContent-Disposition: form-data; name="motivation"\r\n\r\nDocs.\r\n` +
			`--${boundary}\r\nContent-Disposition: form-data; name="answers.city"\r\n\r\nLisbon\r\n` +
			`--${boundary}\r\nContent-Disposition: form-data; name="answers.portfolio"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`
	);
	const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
	const half = Math.floor(file.length / 2);
	const url = new URL(`${base}/apply`);
	return new Promise<{ status: number; body: string } | null>((resolve) => {
		const req = request({
			host: url.hostname,
			port: url.port,
			method: 'POST',
			path: '/apply',
			headers: {
				origin: url.origin,
				cookie,
				accept: 'text/html',
				'content-type': `multipart/form-data; boundary=${boundary}`,
				...(chunked ? {} : { 'content-length': head.length + file.length + tail.length })
			}
		});
		req.on('error', () => resolve(null));
		req.on('response', (res) => {
			let body = '';
			res.on('data', (c: Buffer) => (body += c.toString()));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
		});
		req.write(Buffer.concat([head, file.subarray(0, half)]), () => {
			void between().then((more) => {
				if (more) req.end(Buffer.concat([file.subarray(half), tail]));
				else {
					req.destroy();
					setTimeout(() => resolve(null), 500);
				}
			});
		});
	});
}

describe('streaming an upload to the store', { timeout: 120_000 }, () => {
	// A file of 900 KiB (the question allows 1 MiB): half of it is on disk before the rest is sent.
	const file = Buffer.concat([PDF, randomBytes(900 * 1024)]);

	it('the bytes reach FILES_DIR while the body still arrives, never held whole; the rest completes it', async () => {
		const member = newAccount();
		let seenOnDisk = 0;
		const answer = await applyInHalves(await login(member), file, async () => {
			await until(() => incoming().some((size) => size > 0));
			seenOnDisk = Math.max(0, ...incoming());
			return true;
		});
		expect(seenOnDisk, 'bytes in FILES_DIR/.incoming before the body ended').toBeGreaterThan(0);
		expect(seenOnDisk).toBeLessThan(file.length);
		expect(answer?.status, answer?.body.slice(0, 400)).toBe(303);
		const [row] = await portal.query<{ sha256: string; bytes: number }>(
			`select f.sha256, f.bytes from application_files f join applications a on a.id = f.application_id where a.applicant_address = '${member.address.toLowerCase()}'`
		);
		expect(row).toEqual({ sha256: createHash('sha256').update(file).digest('hex'), bytes: file.length });
		expect(incoming()).toEqual([]);
		const served = await fetch(`${base}/files/${(await fileIdsOf(member))[0]}`, {
			headers: { cookie: await login(member) }
		});
		expect(Buffer.from(await served.arrayBuffer()).equals(file)).toBe(true);
	});

	it('cut off after bytes reached FILES_DIR: the temporary goes, no row, nothing kept', async () => {
		const counts = await written();
		const before = storedFiles();
		let seen = false;
		const answer = await applyInHalves(await login(newAccount()), file, async () => {
			seen = await until(() => incoming().some((size) => size > 0));
			return false;
		});
		expect(answer).toBeNull();
		expect(seen, 'bytes in FILES_DIR/.incoming before the cut').toBe(true);
		expect(await until(() => incoming().length === 0)).toBe(true);
		expect((await fetch(`${base}/healthz`)).status).toBe(200);
		expect(await written()).toEqual(counts);
		expect(storedFiles()).toEqual(before);
	});

	it('a chunked body that passes 25 MiB while it streams: 413 with the limit, nothing kept', async () => {
		const counts = await written();
		const before = storedFiles();
		// Chunked, so no Content-Length refuses it up front: the count as it is read does.
		const answer = await applyInHalves(
			await login(newAccount()),
			Buffer.concat([PDF, Buffer.alloc(26 * MIB)]),
			() => Promise.resolve(true),
			true
		);
		if (answer) {
			expect(answer.status).toBe(413);
			expect(textOf(answer.body)).toContain('This form is over 25 MiB in all, files included');
		}
		expect(await until(() => incoming().length === 0)).toBe(true);
		expect((await fetch(`${base}/healthz`)).status).toBe(200);
		expect(await written()).toEqual(counts);
		expect(storedFiles()).toEqual(before);
	});
});

describe('editing before review (?/edit)', { timeout: 120_000 }, () => {
	const answersOf = async (account: PrivateKeyAccount) =>
		(
			await portal.query<{ answers: { portfolio?: string[]; city?: string } }>(
				`select answers from applications where applicant_address = '${account.address.toLowerCase()}'`
			)
		)[0]!.answers;
	const edit = async (account: PrivateKeyAccount, files: Record<string, Blob | Blob[]>, city = 'Porto') =>
		postForm(
			`${base}/apply?/edit`,
			{ displayName: 'Ada', motivation: 'Edited.', 'answers.city': city, ...files },
			{ cookie: await login(account) }
		);
	// What a browser sends for a file input left empty: a part with no name and no bytes.
	const noFile = () => new File([], '', { type: 'application/octet-stream' });

	it('a file question left empty keeps its files; new files replace them; a wrong one is refused', async () => {
		const member = newAccount();
		expect(
			(await apply(member, { 'answers.portfolio': [named(PDF, 'cv.pdf'), named(PNG, 'me.png', 'image/png')] })).status
		).toBe(303);
		const sent = (await answersOf(member)).portfolio!;
		expect(sent).toHaveLength(2);

		// Left empty (the edit form posted as the browser posts it): the text changes, the files stay.
		const kept = await edit(member, { 'answers.portfolio': noFile() });
		expect(kept.status, textOf(kept.body).slice(0, 600)).toBe(303);
		expect(await answersOf(member)).toEqual({ city: 'Porto', portfolio: sent });
		// The edit page names the files already sent, and does not ask for them again.
		const page = await getPage(`${base}/apply?edit`, await login(member));
		expect(textOf(page.body)).toContain('Already sent: cv.pdf, me.png. Choose files only to replace them.');

		// A file of a type not accepted: 400 naming the question, nothing changed or stored.
		const before = storedFiles();
		const counts = await written();
		const refused = await edit(member, { 'answers.portfolio': named('<!doctype html>', 'new.pdf') }, 'Faro');
		expect(refused.status).toBe(400);
		expect(textOf(refused.body)).toContain('Your portfolio: “new.pdf” is not a file of an accepted type');
		expect(await answersOf(member)).toEqual({ city: 'Porto', portfolio: sent });
		expect(await written()).toEqual(counts);
		expect(storedFiles()).toEqual(before);

		// A new file: the answer holds it alone; it is served to its applicant.
		const other = Buffer.concat([PDF, Buffer.from('% second\n')]);
		const replaced = await edit(member, { 'answers.portfolio': named(other, 'cv-2.pdf') });
		expect(replaced.status).toBe(303);
		const now = (await answersOf(member)).portfolio!;
		expect(now).toHaveLength(1);
		expect(sent).not.toContain(now[0]);
		const file = await fetch(`${base}/files/${now[0]}`, { headers: { cookie: await login(member) } });
		expect(file.status).toBe(200);
		expect(Buffer.from(await file.arrayBuffer())).toEqual(other);
	});
});

describe('resubmitting after needs_info', { timeout: 120_000 }, () => {
	const answersOf = async (account: PrivateKeyAccount) =>
		(
			await portal.query<{ id: string; review: string; answers: { portfolio?: string[]; city?: string } }>(
				`select id, review, answers from applications where applicant_address = '${account.address.toLowerCase()}'`
			)
		)[0]!;
	const askMore = async (id: string) =>
		postForm(
			`${base}/admin?/transition`,
			{ applicationId: id, field: 'review', to: 'needs_info', reason: 'Which city exactly?' },
			{ cookie: await login(admin) }
		);

	it('a file question left empty keeps the files already sent; new files replace them', async () => {
		const member = newAccount();
		expect(
			(await apply(member, { 'answers.portfolio': [named(PDF, 'cv.pdf'), named(PNG, 'me.png', 'image/png')] })).status
		).toBe(303);
		const first = await answersOf(member);
		expect(first.answers.portfolio).toHaveLength(2);
		expect((await askMore(first.id)).status).toBe(303);
		// The resubmission page names the files already sent and does not ask for them again.
		const page = await getPage(`${base}/apply`, await login(member));
		expect(textOf(page.body)).toContain('Already sent: cv.pdf, me.png. Choose files only to replace them.');

		// Resubmitted as a browser posts a file input left empty: the text changes, the files stay, still served.
		const resent = await postForm(
			`${base}/apply`,
			{
				displayName: 'Ada',
				motivation: 'Docs, the city added.',
				'answers.city': 'Lisbon, Alfama',
				'answers.portfolio': new File([], '', { type: 'application/octet-stream' })
			},
			{ cookie: await login(member) }
		);
		expect(resent.status, textOf(resent.body).slice(0, 600)).toBe(303);
		const after = await answersOf(member);
		expect(after.review).toBe('pending');
		expect(after.answers).toEqual({ city: 'Lisbon, Alfama', portfolio: first.answers.portfolio });
		for (const id of first.answers.portfolio!) {
			const file = await fetch(`${base}/files/${id}`, { headers: { cookie: await login(reviewer) } });
			expect(file.status).toBe(200);
		}
		const review = await getPage(`${base}/review/${first.id}`, await login(reviewer));
		for (const id of first.answers.portfolio!) expect(review.body).toContain(`href="/files/${id}"`);

		// Asked again and resubmitted with a new file: the answer holds it alone.
		expect((await askMore(first.id)).status).toBe(303);
		const other = Buffer.concat([PDF, Buffer.from('% resubmitted\n')]);
		expect((await apply(member, { 'answers.portfolio': named(other, 'cv-3.pdf') })).status).toBe(303);
		const now = (await answersOf(member)).answers.portfolio!;
		expect(now).toHaveLength(1);
		expect(first.answers.portfolio).not.toContain(now[0]);
	});
});

describe('withdrawing (?/withdraw)', { timeout: 120_000 }, () => {
	it('the files go with the application: /files/<id> is the unknown path’s 404, the rows and bytes are gone', async () => {
		const member = newAccount();
		const bytes = Buffer.concat([PDF, Buffer.from('% only this application\n')]);
		expect((await apply(member, { 'answers.portfolio': named(bytes, 'withdrawn.pdf') })).status).toBe(303);
		const [id] = await fileIdsOf(member);
		const [{ sha256 } = { sha256: '' }] = await portal.query<{ sha256: string }>(
			`select sha256 from application_files where id = '${id}'`
		);
		expect(storedFiles()).toContain(path.join(sha256.slice(0, 2), sha256));
		const cookie = await login(member);
		const withdrawn = await postForm(`${base}/apply?/withdraw`, { reason: 'Changed my mind' }, { cookie });
		expect(withdrawn.status).toBe(303);
		for (const viewer of [cookie, await login(admin), await login(reviewer)])
			expect((await fetch(`${base}/files/${id}`, { headers: { cookie: viewer } })).status).toBe(404);
		expect(await fileIdsOf(member)).toEqual([]);
		expect(storedFiles()).not.toContain(path.join(sha256.slice(0, 2), sha256));
	});
});

describe('GET /files/<id>', { timeout: 120_000 }, () => {
	let owner: PrivateKeyAccount;
	let ids: string[];
	beforeAll(async () => {
		owner = newAccount();
		expect(
			(await apply(owner, { 'answers.portfolio': [named(PDF, 'cv.pdf'), named(PNG, 'me.png', 'image/png')] })).status
		).toBe(303);
		ids = await fileIdsOf(owner);
	});
	const get = (id: string, cookie?: string, query = '') =>
		fetch(`${base}/files/${id}${query}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });

	it('its applicant gets it as an attachment, sandboxed, never stored by a cache', async () => {
		const answer = await get(ids[0]!, await login(owner));
		expect(answer.status).toBe(200);
		expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`);
		expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
		expect(answer.headers.get('content-security-policy')).toBe('sandbox');
		expect(answer.headers.get('cache-control')).toBe('private, no-store');
		expect(answer.headers.get('content-type')).toBe('application/pdf');
		expect(Buffer.from(await answer.arrayBuffer())).toEqual(PDF);
	});

	it('an admin and a reviewer get it too; a preview is inline, still sandboxed', async () => {
		expect((await get(ids[1]!, await login(admin))).status).toBe(200);
		const preview = await get(ids[1]!, await login(reviewer), '?preview');
		expect(preview.status).toBe(200);
		expect(preview.headers.get('content-disposition')).toMatch(/^inline; filename="me\.png"/);
		expect(preview.headers.get('content-security-policy')).toBe("sandbox; frame-ancestors 'self'");
		expect(Buffer.from(await preview.arrayBuffer())).toEqual(PNG);
	});

	it('a PDF is never inline: with ?preview too it is the sandboxed attachment (its preview is drawn in the page)', async () => {
		const asked = await get(ids[0]!, await login(reviewer), '?preview');
		expect(asked.status).toBe(200);
		expect(asked.headers.get('content-disposition')).toBe(`attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`);
		expect(asked.headers.get('content-security-policy')).toBe('sandbox');
		expect(asked.headers.get('x-frame-options')).toBeNull();
		expect(Buffer.from(await asked.arrayBuffer())).toEqual(PDF);
	});

	it('another member and a visitor get the unknown path’s 404', async () => {
		const [other, ownerCookie] = [await login(newAccount()), await login(owner)];
		const asked: [string, string | undefined][] = [
			[ids[0]!, other],
			[ids[0]!, undefined],
			['00000000-0000-4000-8000-000000000000', ownerCookie]
		];
		for (const [id, cookie] of asked) {
			const answer = await get(id, cookie);
			expect(answer.status).toBe(404);
			expect(answer.headers.get('content-disposition')).toBeNull();
			expect(textOf(await answer.text())).toBe(await unknownTo(cookie));
		}
	});

	it('an admin or reviewer of another programme only gets the unknown path’s 404; of its programme, the file', async () => {
		const [otherAdmin, otherReviewer, ownAdmin, ownReviewer] = [newAccount(), newAccount(), newAccount(), newAccount()];
		// One statement (on PGlite the server stops for each): a second programme, and each role of one programme.
		const row = (account: PrivateKeyAccount, role: string, own: boolean) =>
			`('${account.address.toLowerCase()}', '${role}', ${own})`;
		await portal.query(`with builders as (insert into programs (slug, name) values ('builders', 'Builders') returning id),
			own as (select a.program_id from application_files f join applications a on a.id = f.application_id where f.id = '${ids[1]}')
			insert into team_members (address, role, program_id, added_by)
			select g.address, g.role, case when g.own then (select program_id from own) else (select id from builders) end, 'sql'
			from (values ${[row(otherAdmin, 'admin', false), row(otherReviewer, 'reviewer', false), row(ownAdmin, 'admin', true), row(ownReviewer, 'reviewer', true)].join(', ')}) as g(address, role, own)`);
		// A change of the team shows within a second.
		await new Promise((resolve) => setTimeout(resolve, 1100));
		for (const account of [otherAdmin, otherReviewer]) {
			const cookie = await login(account);
			for (const query of ['', '?preview']) {
				const answer = await get(ids[1]!, cookie, query);
				expect(answer.status).toBe(404);
				expect(answer.headers.get('content-disposition')).toBeNull();
				expect(textOf(await answer.text())).toBe(await unknownTo(cookie));
			}
		}
		for (const account of [ownAdmin, ownReviewer]) {
			const answer = await get(ids[1]!, await login(account));
			expect(answer.status).toBe(200);
			expect(Buffer.from(await answer.arrayBuffer())).toEqual(PNG);
		}
	});

	it('the reviewer’s page links each file and previews an image; a PDF’s frame comes with its script only', async () => {
		const [app] = await portal.query<{ id: string }>(
			`select id from applications where applicant_address = '${owner.address.toLowerCase()}'`
		);
		const page = await getPage(`${base}/review/${app!.id}`, await login(reviewer));
		expect(page.status).toBe(200);
		for (const id of ids) expect(page.body).toContain(`href="/files/${id}"`);
		// The PDF is drawn in a frame the page writes once its script runs (tests/e2e/pdf-preview.spec.ts):
		// nothing of it in the HTML, and the file is never a frame's address.
		expect(page.body).not.toContain('<iframe');
		expect(page.body).not.toContain(`/files/${ids[0]}?preview`);
		expect(page.body).toContain(`src="/files/${ids[1]}?preview"`);
	});
});

describe('withdrawing', { timeout: 120_000 }, () => {
	it('takes the files with it: the unknown path for everyone, no rows, the bytes only it held removed', async () => {
		const owner = newAccount();
		const own = Buffer.concat([PDF, Buffer.from(`% ${owner.address}\n`)]);
		const sharedBy = newAccount();
		expect((await apply(sharedBy, { 'answers.portfolio': named(PNG, 'logo.png', 'image/png') })).status).toBe(303);
		const cookie = await login(owner);
		expect(
			(await apply(owner, { 'answers.portfolio': [named(own, 'cv.pdf'), named(PNG, 'me.png', 'image/png')] })).status
		).toBe(303);
		const ids = await fileIdsOf(owner);
		expect(ids).toHaveLength(2);
		const [ownHash, pngHash] = [own, PNG].map((b) => createHash('sha256').update(b).digest('hex'));
		expect(storedFiles()).toEqual(expect.arrayContaining([path.join(ownHash!.slice(0, 2), ownHash!)]));
		const get = (id: string, c: string) =>
			fetch(`${base}/files/${id}`, { headers: { accept: 'text/html', cookie: c } });
		expect((await get(ids[0]!, cookie)).status).toBe(200);

		const withdrawn = await postForm(`${base}/apply?/withdraw`, { reason: 'Changed my mind' }, { cookie });
		expect(withdrawn.status).toBe(303);

		for (const viewer of [cookie, await login(admin), await login(reviewer)])
			for (const id of ids) {
				const answer = await get(id, viewer);
				expect(answer.status).toBe(404);
				expect(textOf(await answer.text())).toBe(await unknownTo(viewer));
			}
		expect(await portal.query(`select id from application_files where id in ('${ids.join("', '")}')`)).toEqual([]);
		const stored = storedFiles();
		expect(stored).not.toContain(path.join(ownHash!.slice(0, 2), ownHash!));
		// The PNG's bytes are another application's too: they stay, and still serve it.
		expect(stored).toContain(path.join(pngHash!.slice(0, 2), pngHash!));
		const [other] = await fileIdsOf(sharedBy);
		expect((await get(other!, await login(sharedBy))).status).toBe(200);
	});
});

// Last: the server answers this 413 without reading the body and closes the connection, which a pooled
// connection of the next request's sign-in could meet.
describe('the other routes', () => {
	it('other routes keep the 512 KiB limit', async () => {
		const refused = await postForm(
			`${base}/review/00000000-0000-4000-8000-000000000000?/vote`,
			{ comment: 'x'.repeat(600 * 1024), extra: blob('x', 'text/plain') },
			{ cookie: await login(reviewer) }
		);
		expect(refused.status).toBe(413);
	});
});
