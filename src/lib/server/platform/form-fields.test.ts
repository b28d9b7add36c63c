// readForm reads a post once into FormFields; every reader of fields (formInput, answersInput, voteInput,
// prefixed) then looks names up in its Map. A reader that walked the post once per name (the quadratic
// shape of issue 39) shows here as a number of lookups that grows with the number of fields.
import { isHttpError } from '@sveltejs/kit';
import { describe, expect, it } from 'vitest';
import { answersInput } from '../forms/answers';
import { voteInput } from '../reviews/votes';
import { FormFields, MAX_FORM_FIELDS, formInput, readForm } from './forms';

const post = (body: BodyInit, type?: string) =>
	new Request('http://portal.test/apply', {
		method: 'POST',
		body,
		headers: type ? { 'content-type': type } : undefined
	});
const urlencoded = (body: string) => post(body, 'application/x-www-form-urlencoded');

async function refusal(request: Request) {
	try {
		await readForm(request);
	} catch (err) {
		if (isHttpError(err)) return { status: err.status, body: err.body as { code?: string } };
		throw err;
	}
	throw new Error('the form was read');
}

/** FormFields over `entries`, counting how often its entries are walked and its names looked up. */
function counted(entries: [string, string][]) {
	const counts = { walked: 0, lookups: 0 };
	const source = function* () {
		for (const entry of entries) {
			counts.walked++;
			yield entry;
		}
	};
	const fields = new FormFields(source());
	const lookups = ['getAll', 'get', 'has'] as const;
	const spied = new Proxy(fields, {
		get(target, key, receiver) {
			const value = Reflect.get(target, key, receiver) as unknown;
			if (typeof value !== 'function') return value;
			if ((lookups as readonly PropertyKey[]).includes(key))
				return (...args: unknown[]) => {
					counts.lookups++;
					return (value as (...a: unknown[]) => unknown).apply(target, args);
				};
			return (value as (...a: unknown[]) => unknown).bind(target);
		}
	});
	return { fields: spied, counts };
}

const distinct = (prefix: string, n: number): [string, string][] =>
	Array.from({ length: n }, (_, i) => [`${prefix}${i}`, '3']);

describe('FormFields: a form read once', () => {
	it('keeps every value of a name in order, and the entries as sent', async () => {
		const form = await readForm(urlencoded('a=1&b=2&a=3&answers.x=on&answers.x=off&c='));
		expect(form.getAll('a')).toEqual(['1', '3']);
		expect(form.get('a')).toBe('1');
		expect(form.getAll('missing')).toEqual([]);
		expect(form.get('missing')).toBeNull();
		expect(form.has('c')).toBe(true);
		expect([...form.keys()]).toEqual(['a', 'b', 'answers.x', 'c']);
		expect([...form.entries()].map(([k]) => k)).toEqual(['a', 'b', 'a', 'answers.x', 'answers.x', 'c']);
		expect(formInput(form, ['a', 'b', 'missing'])).toEqual({ a: ['1', '3'], b: '2', missing: undefined });
		expect({ ...form.prefixed('answers.') }).toEqual({ 'answers.x': ['on', 'off'] });
	});

	it('reads multipart with files as FormData does', async () => {
		const sent = new FormData();
		sent.append('displayName', 'Ada');
		sent.append('answers.cv', new Blob(['x']), 'cv.txt');
		const form = await readForm(post(sent));
		expect(form.get('displayName')).toBe('Ada');
		expect(form.get('answers.cv')).toBeInstanceOf(File);
	});

	it('gives prefixed fields in an object no name can reach the prototype of', async () => {
		const form = await readForm(urlencoded('answers.__proto__=x&answers.constructor=y&score.a=1'));
		const sent = form.prefixed('answers.');
		expect(Object.getPrototypeOf(sent)).toBeNull();
		expect(Object.keys(sent)).toEqual(['answers.__proto__', 'answers.constructor']);
	});

	it('walks the post once and looks each field up a fixed number of times, however many distinct names it has', () => {
		const cost = (n: number) => {
			const { fields, counts } = counted([
				['vote', 'approve'],
				['displayName', 'Ada'],
				...distinct('answers.q', n),
				...distinct('score.c', n)
			]);
			answersInput(fields);
			voteInput(fields);
			formInput(fields, ['displayName', 'motivation', 'contact']);
			return counts;
		};
		const small = cost(100);
		const large = cost(1600);
		expect(small.walked).toBe(202);
		expect(large.walked).toBe(3202);
		// Per-name lookups are the readers' own fixed fields: the same for 100 and 1,600 names.
		expect(large.lookups).toBe(small.lookups);
		expect(large.lookups).toBeLessThanOrEqual(8);
	});

	it('answers with the values a reader would have got from FormData', async () => {
		const body = new URLSearchParams([
			['vote', 'reject'],
			['comment', 'no'],
			['score.a', '2'],
			['score.a', '3'],
			['score.b', '5']
		]);
		const input = voteInput(await readForm(urlencoded(body.toString())));
		expect(input).toEqual({ vote: 'reject', comment: 'no', 'score.a': ['2', '3'], 'score.b': '5' });
	});
});

describe('readForm: a bounded cost before any rate limit', () => {
	it(`reads ${MAX_FORM_FIELDS} fields and refuses one more with 413 too_many_fields, URL-encoded or multipart`, async () => {
		const names = (n: number) => Array.from({ length: n }, (_, i) => `answers.q${i}=1`).join('&');
		expect((await readForm(urlencoded(names(MAX_FORM_FIELDS)))).size).toBe(MAX_FORM_FIELDS);
		const refused = await refusal(urlencoded(names(MAX_FORM_FIELDS + 1)));
		expect([refused.status, refused.body.code]).toEqual([413, 'too_many_fields']);
		// Empty entries count too: the bound is on the bytes, before anything is parsed.
		expect((await refusal(urlencoded('&'.repeat(500_000)))).status).toBe(413);
		const multipart = new FormData();
		for (let i = 0; i <= MAX_FORM_FIELDS; i++) multipart.append(`score.c${i}`, '1');
		expect((await refusal(post(multipart))).status).toBe(413);
	});

	it('still refuses what is not a form with the 400', async () => {
		const refused = await refusal(post('a=1', 'text/plain'));
		expect([refused.status, refused.body.code]).toEqual([400, 'invalid_request']);
		expect((await refusal(post('--x\r\nbroken', 'multipart/form-data; boundary=x'))).status).toBe(400);
	});

	it('refuses text that is not UTF-8 with the 400, escaped or raw, rather than read it as U+FFFD', async () => {
		for (const body of ['note=%FF%FE', 'note=ok&x=%C3', 'note=%ED%A0%80']) {
			const refused = await refusal(urlencoded(body));
			expect([refused.status, refused.body.code], body).toEqual([400, 'invalid_request']);
		}
		const raw = Buffer.from(
			'--x\r\nContent-Disposition: form-data; name="note"\r\n\r\n\xff\xfe\r\n--x--\r\n',
			'latin1'
		);
		expect((await refusal(post(raw, 'multipart/form-data; boundary=x'))).status).toBe(400);
		// What a browser sends reads as it was typed: any script, escaped or raw, and a literal %.
		const fine = await readForm(urlencoded(`note=${encodeURIComponent('Ünïcødé 漢字 مرحبا 🎉')}&pct=100%`));
		expect([fine.get('note'), fine.get('pct')]).toEqual(['Ünïcødé 漢字 مرحبا 🎉', '100%']);
		const multipart = new FormData();
		multipart.append('note', 'Ünïcødé 漢字');
		expect((await readForm(post(multipart))).get('note')).toBe('Ünïcødé 漢字');
	});

	it('reads a file part of any bytes (a PNG is not UTF-8), while the text beside it must still be', async () => {
		const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00]);
		const multipart = new FormData();
		multipart.append('note', 'ok');
		multipart.append('answers.portfolio', new File([png], 'me.png', { type: 'image/png' }));
		const form = await readForm(post(multipart));
		const file = form.get('answers.portfolio') as File;
		expect(new Uint8Array(await file.arrayBuffer())).toEqual(png);
		const textNotUtf8 = Buffer.from(
			'--x\r\nContent-Disposition: form-data; name="f"; filename="a.png"\r\n\r\n\x89PNG\xff\r\n' +
				'--x\r\nContent-Disposition: form-data; name="note"\r\n\r\n\xff\xfe\r\n--x--\r\n',
			'latin1'
		);
		expect((await refusal(post(textNotUtf8, 'multipart/form-data; boundary=x'))).status).toBe(400);
	});
});

describe('readForm: a URL-encoded body reads as the Fetch standard reads it', () => {
	// readForm parses a URL-encoded body itself (URLSearchParams over its UTF-8 text) rather than through a
	// second Request's formData(): every name and value must come out as that would give them.
	const bodies = [
		'displayName=Ada&motivation=Because+I+can&contact=%40ada',
		'a=1&a=2&b=&=nameless&c',
		'&&x=%2B%26%3D&y=%zz&z=100%',
		'\uFEFFfirst=with+a+byte-order+mark',
		'note=%E2%9C%93+%D8%B9%D8%B1%D8%A8%D9%8A+%E4%B8%AD%E6%96%87&emoji=%F0%9F%98%80',
		'motivation=line%0D%0Abreak%0Aand%09tab',
		''
	];
	it.each(bodies)('%j', async (body) => {
		const read = await readForm(urlencoded(body));
		const expected = await urlencoded(body).formData();
		expect([...read.entries()]).toEqual([...expected.entries()]);
	});

	it('with a charset or odd spacing in its Content-Type, the same', async () => {
		for (const type of ['application/x-www-form-urlencoded; charset=UTF-8', ' Application/X-WWW-Form-URLEncoded '])
			expect([...(await readForm(post('a=%C3%A9&b=2', type))).entries()]).toEqual([
				['a', 'é'],
				['b', '2']
			]);
	});
});
