// The /admin page with 10,000 applications and 50,000 audit rows on a Postgres server: server time
// per page (sequential requests on loopback, so the time is the server's) and the number of SQL
// statements each request sends, counted on the wire by a proxy between the portal and Postgres.
//
//   node bench/admin-page.js [--no-build] [--requests 60]     (or: npm run bench -- --only admin-page)
//
// Needs BENCH_DATABASE_URL or TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { execSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createConnection, createServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { defaults, seal } from 'iron-webcrypto';
import postgres from 'postgres';

const APPLICATIONS = 10_000;
const EVENTS = 50_000;
const PASSWORD = 'bench-session-password-0123456789-abcdef';
const ADMIN = '0x' + 'ad'.repeat(20);

async function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/**
 * A TCP proxy that counts the statements a client sends: every Execute (extended protocol) and
 * every simple Query message of the frontend stream.
 */
async function countingProxy(target) {
	const counter = { statements: 0 };
	const server = createServer((client) => {
		const upstream = createConnection(target);
		let buffer = Buffer.alloc(0);
		let untyped = true; // the startup (and SSL request) messages carry no type byte
		client.on('data', (chunk) => {
			upstream.write(chunk);
			buffer = Buffer.concat([buffer, chunk]);
			for (;;) {
				if (untyped) {
					if (buffer.length < 8) break;
					const length = buffer.readInt32BE(0);
					if (buffer.length < length) break;
					untyped = buffer.readInt32BE(4) === 80877103; // an SSL request is followed by the startup message
					buffer = buffer.subarray(length);
					continue;
				}
				if (buffer.length < 5) break;
				const length = buffer.readInt32BE(1);
				if (buffer.length < 1 + length) break;
				const type = String.fromCharCode(buffer[0]);
				if (type === 'E' || type === 'Q') counter.statements++;
				buffer = buffer.subarray(1 + length);
			}
		});
		upstream.on('data', (chunk) => client.write(chunk));
		for (const [a, b] of [[client, upstream], [upstream, client]]) {
			a.on('error', () => b.destroy());
			a.on('close', () => b.destroy());
		}
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { port: server.address().port, counter, close: () => new Promise((r) => server.close(r)) };
}

export async function seed(sql) {
	await sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, ${APPLICATIONS}) g`;
	// Spread over 100 days; a realistic mix of states.
	await sql`
		insert into applications (applicant_address, display_name, motivation, contact, review, allowlist, distribution, created_at, updated_at)
		select '0x' || lpad(to_hex(g), 40, '0'), 'Applicant ' || g, repeat('I would like to join because ', 8), '@member' || g,
			(array['pending','needs_info','approved','rejected'])[1 + g % 4]::review_state,
			(case when g % 4 = 2 then (array['pending','added','failed'])[1 + g % 3] else 'pending' end)::allowlist_state,
			(case when g % 4 = 2 then (array['pending','sent','failed'])[1 + (g / 3) % 3] else 'pending' end)::distribution_state,
			now() - make_interval(mins => g * 14), now() - make_interval(mins => g * 14)
		from generate_series(1, ${APPLICATIONS}) g`;
	await sql`
		insert into application_events (application_id, executor_address, created_at, field, from_state, to_state, reason, tx_hash)
		select a.id, ${ADMIN}, a.created_at + make_interval(mins => e.n),
			(array['review','review','allowlist','distribution','review'])[e.n]::application_field,
			'pending', 'needs_info', case when e.n % 2 = 0 then 'Please say more about your plans.' end,
			case when e.n in (3, 4) then '0x' || encode(sha256(convert_to(a.id::text || e.n, 'utf8')), 'hex') end
		from applications a cross join generate_series(1, ${EVENTS / APPLICATIONS}) as e(n)`;
	await sql`analyze`;
	const [{ apps }] = await sql`select count(*)::int as apps from applications`;
	const [{ events }] = await sql`select count(*)::int as events from application_events`;
	return { apps, events };
}

export async function startPortal(databaseUrl) {
	const port = await freePort();
	const child = spawn(process.execPath, ['build/index.js'], {
		env: {
			PATH: process.env.PATH,
			PORT: String(port),
			HOST: '127.0.0.1',
			ORIGIN: `http://127.0.0.1:${port}`,
			SESSION_PASSWORD: PASSWORD,
			SIWE_ALLOWED_DOMAINS: `127.0.0.1:${port}`,
			ADMIN_ADDRESSES: ADMIN,
			DATABASE_URL: databaseUrl
		},
		stdio: ['ignore', 'pipe', 'pipe']
	});
	let output = '';
	child.stdout.on('data', (c) => (output += c));
	child.stderr.on('data', (c) => (output += c));
	await new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`portal did not start:\n${output}`)), 60_000);
		child.stdout.on('data', () => /Listening on/.test(output) && (clearTimeout(timer), resolve()));
		child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`portal exited ${code}:\n${output}`))));
	});
	return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

// The cookie the portal's session codec reads (src/lib/server/session.ts: iron seal, password id = sha256 prefix).
export async function adminCookie() {
	const id = createHash('sha256').update(PASSWORD).digest('hex').slice(0, 12);
	const sealed = await seal({ address: ADMIN, expiresAt: Date.now() + 3_600_000 }, { id, secret: PASSWORD }, { ...defaults, ttl: 0 });
	return `session=${sealed}`;
}

const SCENARIOS = [
	['first page', '/admin'],
	['middle page (250 of 500)', '/admin?page=250'],
	['last page (500)', '/admin?page=500'],
	['filter review=pending', '/admin?review=pending&page=20'],
	['filter approved + allowlist pending', '/admin?review=approved&allowlist=pending'],
	['search by part of an address', '/admin?address=0x00000000000000000000000000000000000012'],
	['CSV, approved + allowlist pending', '/admin/allowlist.csv'],
	['past the last page (no rows: the fixed cost)', '/admin?page=9999']
];

/** Runs the scenarios; rows in the harness's table shape, plus statements per request. */
export default async function adminPage({ databaseUrl, requests = 60 }) {
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
	const rows = [];
	try {
		const sizes = await seed(sql);
		console.error(`seeded ${sizes.apps} applications and ${sizes.events} audit rows`);
		const target = new URL(databaseUrl);
		const proxy = await countingProxy({ host: target.hostname, port: Number(target.port || 5432) });
		const viaProxy = new URL(databaseUrl);
		viaProxy.hostname = '127.0.0.1';
		viaProxy.port = String(proxy.port);
		const portal = await startPortal(viaProxy.toString());
		const cookie = await adminCookie();
		try {
			for (const [name, path] of SCENARIOS) {
				const get = () => fetch(portal.url + path, { headers: { cookie, accept: 'text/html' } });
				for (let i = 0; i < 5; i++) await (await get()).arrayBuffer(); // warm up: readiness check, prepared statements
				const latencies = [];
				const statements = [];
				let errors = 0;
				let bytes = 0;
				for (let i = 0; i < requests; i++) {
					const before = proxy.counter.statements;
					const started = performance.now();
					const response = await get();
					const body = await response.arrayBuffer();
					latencies.push(performance.now() - started);
					bytes = body.byteLength;
					if (response.status !== 200) errors++;
					await new Promise((r) => setImmediate(r));
					statements.push(proxy.counter.statements - before);
				}
				latencies.sort((a, b) => a - b);
				const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
				const queries = Math.max(...statements);
				rows.push({
					name: `admin: ${name} (${queries} SQL statements/request)`,
					label: `admin: ${name}`,
					rps: 1000 / (latencies.reduce((a, b) => a + b, 0) / latencies.length),
					p50: at(0.5),
					p99: at(0.99),
					errors,
					queries,
					bytes,
					target: 'queries <= 3, no query per row'
				});
			}
		} finally {
			portal.stop();
			await proxy.close();
		}
	} finally {
		await sql.end();
	}
	return rows;
}

export async function createDatabase(adminUrl) {
	const name = `portal_bench_${randomBytes(5).toString('hex')}`;
	const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
	await admin.unsafe(`create database ${name}`);
	await admin.end();
	const url = new URL(adminUrl);
	url.pathname = `/${name}`;
	const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
	await migrate(drizzle(client), { migrationsFolder: 'drizzle' });
	await client.end();
	return {
		url: url.toString(),
		async drop() {
			const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
			await a.unsafe(`drop database if exists ${name} with (force)`);
			await a.end();
		}
	};
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	const { values } = parseArgs({ options: { 'no-build': { type: 'boolean', default: false }, requests: { type: 'string', default: '60' } } });
	if (!values['no-build']) execSync('npx vite build', { stdio: ['ignore', 'ignore', 'inherit'] });
	const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
	const database = await createDatabase(adminUrl);
	try {
		const rows = await adminPage({ databaseUrl: database.url, requests: Number(values.requests) });
		const os = await import('node:os');
		console.log(`\nmachine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, Node ${process.version}, ${APPLICATIONS} applications, ${EVENTS} audit rows, 20 per page\n`);
		const header = ['scenario', 'p50 ms', 'p99 ms', 'SQL statements / request', 'response KiB', 'errors'];
		const lines = rows.map((r) => [r.label, r.p50.toFixed(1), r.p99.toFixed(1), String(r.queries), (r.bytes / 1024).toFixed(0), String(r.errors)]);
		const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
		const row = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
		console.log([row(header), row(widths.map((w) => '-'.repeat(w))), ...lines.map(row)].join('\n'));
	} finally {
		await database.drop();
	}
}
