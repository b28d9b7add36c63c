// @ts-check
// Webhooks (docs/webhooks.md): the cost of the outbox row on an admin's transition, and how fast the
// worker empties the outbox. Two portals on the same database, one with WEBHOOK_URLS pointing at a
// receiver on loopback (a process of its own, bench/receiver-process.js) and one without, take
// POST /admin?/transition (review pending → needs_info) in alternating rounds, connected straight to
// the database. Statements per transition are counted on the wire by a second pair of portals behind
// counting proxies, leaving out the worker's own (its claims and records are `update "webhook_deliveries"`):
// the proxies parse every byte in this process, so they stay out of the timed rounds.
// A third kind of round calibrates the machine: the portal without webhooks again, beside a busy loop
// at the lowest CPU priority (nice 19), which takes only CPU that nothing else wants. What that costs
// the rate is what any background work costs it here, however it is scheduled.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import postgres from 'postgres';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { countingProxy, httpClient, loop, medianByRps, signIn, startPortal } from '../harness.js';

const ADMINS = 576; // 120 transitions an hour each: enough for 3 kinds of round, 7 rounds each, at 600 a second
const APPLICATIONS = 72_000;
const CONNECTIONS = 8;
const EVENTS = 1_000;

/** @type {import('../harness.js').Scenario} */
export default async function webhooks({ databaseUrl, engine, seconds, rounds }) {
	if (!existsSync('src/lib/server/webhooks')) return [{ name: 'webhooks: skipped (not on this branch)' }];
	if (engine !== 'postgres') return [{ name: 'webhooks: skipped with --pglite (the bench seeds over SQL)' }];
	const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
	const receiver = spawn(process.execPath, ['bench/receiver-process.js'], { stdio: ['ignore', 'pipe', 'inherit'] });
	receiver.unref(); // a failed start below must not keep the bench alive
	/** @type {unknown[]} */
	const firstOutput = await once(receiver.stdout, 'data');
	const port = Number(String(firstOutput[0]).trim());
	const receiverUrl = `http://127.0.0.1:${port}`;
	const received = async () => Number(await (await fetch(`${receiverUrl}/count`)).text());
	const hookUrl = `http://127.0.0.1:${port}/hook`;
	const webhookEnv = { WEBHOOK_URLS: hookUrl, WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}` };

	const accounts = Array.from({ length: ADMINS }, () => privateKeyToAccount(generatePrivateKey()));
	const admins = { ADMIN_ADDRESSES: accounts.map((a) => a.address).join(',') };
	const ignore = /^\s*update "webhook_deliveries"/i;
	const plainProxy = await countingProxy(databaseUrl, { ignore });
	const hookProxy = await countingProxy(databaseUrl, { ignore });
	const plain = await startPortal({ DATABASE_URL: databaseUrl, ...admins });
	const hooked = await startPortal({ DATABASE_URL: databaseUrl, ...admins, ...webhookEnv });
	const plainCounted = await startPortal({ DATABASE_URL: plainProxy.url, ...admins });
	const hookedCounted = await startPortal({ DATABASE_URL: hookProxy.url, ...admins, ...webhookEnv });
	try {
		await sql`insert into members (address) select '0x' || lpad(to_hex(g), 40, '0') from generate_series(1, ${APPLICATIONS}) g`;
		await sql`insert into applications (applicant_address, display_name, motivation)
			select '0x' || lpad(to_hex(g), 40, '0'), 'Applicant ' || g, 'I would like to join.' from generate_series(1, ${APPLICATIONS}) g`;
		await sql`vacuum (analyze) applications, members`;
		const ids = (await sql`select id from applications order by id`).map((r) => String(r.id));
		// The session cookie is the same for both portals: same password, same address.
		/** @type {string[]} */
		const cookies = [];
		for (const a of accounts) cookies.push(await signIn(plain.url, a));

		let next = 0;
		let hookedDone = 0;
		/** @param {import('../harness.js').Portal} portal @param {ReturnType<typeof httpClient>} client */
		const transition = (portal, client) => async () => {
			const n = next++;
			const r = await client.request('POST', '/admin?/transition', {
				headers: {
					origin: portal.url,
					accept: 'text/html',
					'content-type': 'application/x-www-form-urlencoded',
					cookie: cookies[n % ADMINS] ?? ''
				},
				body: new URLSearchParams({
					applicationId: ids[n] ?? '',
					field: 'review',
					to: 'needs_info',
					reason: 'Please say more.'
				}).toString()
			});
			if (r.status !== 303) throw new Error(`transition ${r.status}`);
			if (portal === hooked || portal === hookedCounted) hookedDone++;
		};
		const runs = {
			plain: transition(plain, httpClient(plain.url, CONNECTIONS)),
			hooked: transition(hooked, httpClient(hooked.url, CONNECTIONS)),
			busy: transition(plain, httpClient(plain.url, CONNECTIONS))
		};
		const counted = {
			plain: transition(plainCounted, httpClient(plainCounted.url, 1)),
			hooked: transition(hookedCounted, httpClient(hookedCounted.url, 1))
		};
		/** @param {() => Promise<void>} run @param {{ counter: { statements: number } }} proxy */
		const perTransition = async (run, proxy) => {
			for (let i = 0; i < 3; i++) await run(); // warm-up, schema check included
			await new Promise((r) => setTimeout(r, 50));
			const before = proxy.counter.statements;
			for (let i = 0; i < 20; i++) await run();
			await new Promise((r) => setTimeout(r, 50));
			return (proxy.counter.statements - before) / 20;
		};
		const plainSql = await perTransition(counted.plain, plainProxy);
		const hookedSql = await perTransition(counted.hooked, hookProxy);
		// Its events delivered before it goes (a killed worker's claims would wait out their lease).
		await waitFor(async () => (await received()) >= hookedDone, 10_000);
		await plainCounted.stop();
		await hookedCounted.stop();
		const options = { seconds, concurrency: CONNECTIONS };
		// Alternating rounds. After a round with webhooks its last events are delivered before the next
		// round starts (the worker looks every second), so that no delivery runs in a round without them;
		// the machine's CPU time per transition is measured over each round and its deliveries.
		/** @type {Record<'plain' | 'hooked' | 'busy', import('../harness.js').Rate[]>} */
		const rates = { plain: [], hooked: [], busy: [] };
		/** @type {Record<'plain' | 'hooked', number[]>} */
		const cpu = { plain: [], hooked: [] };
		/** @type {Record<'plain' | 'hooked', Record<string, number>[]>} */
		const split = { plain: [], hooked: [] };
		const processes = { plain: plain.pid, hooked: hooked.pid, receiver: receiver.pid ?? 0, bench: process.pid };
		// A first round of each is not counted (both processes' code warms up alike), and the order
		// alternates (plain first, then hooked first) so that a drift of the machine favours neither.
		for (let round = -1; round < rounds; round++) {
			/** @type {('plain' | 'hooked' | 'busy')[]} */
			const order = round % 2 ? ['plain', 'hooked', 'busy'] : ['busy', 'hooked', 'plain'];
			for (const name of order) {
				if (name === 'busy') {
					const busy = idlePriorityBusyLoop();
					const rate = await loop(runs.busy, options);
					busy.kill();
					await once(busy, 'exit');
					if (round >= 0) rates.busy.push(rate);
					continue;
				}
				const [cpuBefore, countBefore, splitBefore] = [machineCpuMs(), next, cpuSplitMs(processes)];
				const rate = await loop(runs[name], options);
				if (name === 'hooked') await waitFor(async () => (await received()) >= hookedDone, 30_000);
				if (round < 0) continue;
				rates[name].push(rate);
				const count = next - countBefore;
				cpu[name].push((machineCpuMs() - cpuBefore) / count);
				const splitAfter = cpuSplitMs(processes);
				split[name].push(
					Object.fromEntries(Object.entries(splitAfter).map(([k, v]) => [k, (v - (splitBefore[k] ?? 0)) / count]))
				);
			}
		}
		const m = { plain: medianByRps(rates.plain), hooked: medianByRps(rates.hooked) };
		// Each pair of rounds ran back to back, so its ratio is the least touched by the machine's drift.
		/** @param {import('../harness.js').Rate[]} list */
		const pairsWithPlain = (list) => list.map((r, i) => r.rps / (rates.plain[i]?.rps ?? NaN)).sort((a, b) => a - b);
		/** @param {number[]} sorted */
		const spread = (sorted) =>
			[sorted[0], sorted[Math.floor(sorted.length / 2)], sorted.at(-1)].map((r) => r?.toFixed(2)).join(' · ');
		const pairs = pairsWithPlain(rates.hooked);
		const cpuMedian = (/** @type {number[]} */ list) =>
			[...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
		if (next > Math.min(ADMINS * 120, APPLICATIONS))
			throw new Error('more transitions than the admins may make in an hour');

		// Every transition's event arrived; then 1,000 events written at once (as 1,000 changes would), timed until the last arrives.
		const delivered = await waitFor(async () => (await received()) >= hookedDone, 30_000);
		await fetch(`${receiverUrl}/count`, { method: 'DELETE' });
		const hash = createHash('sha256').update(new URL(hookUrl).href).digest('hex');
		const insertBefore = cpuSplitMs(processes);
		const started = performance.now();
		await sql`insert into webhook_deliveries (event_id, event_type, data, url_hash, url_host)
			select gen_random_uuid(), 'checkin.created', jsonb_build_object('n', g), ${hash}, '127.0.0.1'
			from generate_series(1, ${EVENTS}) g`;
		// The worker cannot see the rows before the INSERT commits: from here on, the CPU is delivery's.
		const deliveryBefore = cpuSplitMs(processes);
		const allIn = await waitFor(async () => (await received()) >= EVENTS, 60_000);
		const elapsed = (performance.now() - started) / 1000;
		const deliveryAfter = cpuSplitMs(processes);
		const deliveryCpu = (/** @type {string} */ k) => ((deliveryAfter[k] ?? 0) - (deliveryBefore[k] ?? 0)) / EVENTS;
		const insertCpu = ((deliveryBefore.postgres ?? 0) - (insertBefore.postgres ?? 0)) / EVENTS;
		// Delivery alone, in one burst (the largest batches the worker makes), and what 0.9 leaves an event.
		const delivery = deliveryCpu('hooked') + deliveryCpu('postgres') + deliveryCpu('receiver');
		const plainCpu = cpuMedian(cpu.plain);
		const budget = plainCpu * (1 / 0.9 - 1);
		const eventCpu = cpuMedian(cpu.hooked) - plainCpu;
		return [
			{
				name: `POST /admin?/transition with WEBHOOK_URLS set, ${CONNECTIONS} conns (vs the same without webhooks, same database)`,
				...m.hooked,
				queries: hookedSql,
				baseline: { ...m.plain },
				target: `ratio >= 0.9; SQL/req <= ${plainSql} + 1 (without: ${plainSql})`
			},
			{
				name: `the rate ratio of each pair of rounds (${rounds}): lowest · median · highest`,
				value: spread(pairs)
			},
			{
				name: 'calibration: POST /admin?/transition without webhooks beside a busy loop at the lowest CPU priority (nice 19), which takes only idle CPU (vs without it, same rounds)',
				...medianByRps(rates.busy),
				baseline: { ...m.plain },
				target: 'none: what background work as such costs the rate here'
			},
			{
				name: `the calibration's ratio in each round (${rounds}): lowest · median · highest`,
				value: spread(pairsWithPlain(rates.busy))
			},
			{
				name: `machine CPU per transition with webhooks, their delivery and the receiver included (vs without), median of ${rounds} rounds`,
				value: `${cpuMedian(cpu.hooked).toFixed(2)} ms vs ${cpuMedian(cpu.plain).toFixed(2)} ms (${(cpuMedian(cpu.plain) / cpuMedian(cpu.hooked)).toFixed(2)})`,
				target: 'ratio >= 0.9 (a steadier view of the same cost)'
			},
			...['hooked', 'plain'].map((name) => ({
				name: `CPU per transition by process, ${name === 'hooked' ? 'with' : 'without'} webhooks (medians): the portal measured, Postgres (all its processes), the receiver, the load generator`,
				value: ['portal', 'postgres', 'receiver', 'bench']
					.map(
						(k) =>
							`${k} ${cpuMedian(split[/** @type {'plain' | 'hooked'} */ (name)].map((s) => (k === 'portal' ? s[name] : s[k]) ?? 0)).toFixed(2)}`
					)
					.join(' · ')
			})),
			{
				name: `${EVENTS} outbox rows to a receiver on loopback (one portal process)${allIn ? '' : ' NOT ALL ARRIVED'}`,
				value: `${elapsed.toFixed(2)} s`,
				target: '<= 10 s'
			},
			{
				name: `CPU per event while those ${EVENTS} were delivered (after their INSERT, which took Postgres ${insertCpu.toFixed(3)} ms per row): the portal, Postgres, the receiver`,
				value: ['hooked', 'postgres', 'receiver']
					.map((k) => `${k === 'hooked' ? 'portal' : k} ${deliveryCpu(k).toFixed(3)}`)
					.join(' · ')
			},
			{
				name: 'what one event costs the machine under load (CPU per transition with webhooks minus without), against what a ratio of 0.9 leaves it; of it, delivery alone (the row above: portal, Postgres and receiver)',
				value: `${eventCpu.toFixed(2)} ms against ${budget.toFixed(2)} ms; delivery alone ${delivery.toFixed(2)} ms, so the outbox row and delivering amid requests ${(eventCpu - delivery).toFixed(2)} ms`
			},
			...(delivered ? [] : [{ name: 'webhooks: not every transition event arrived within 30 s' }])
		];
	} finally {
		for (const portal of [plain, hooked, plainCounted, hookedCounted]) await portal.stop();
		await plainProxy.close();
		await hookProxy.close();
		receiver.kill();
		await sql.end();
	}
}

/**
 * A process that spins at the lowest CPU priority until killed: it runs only when nothing else wants
 * the CPU, so any rate it takes away is the cost of background work as such on this machine.
 */
function idlePriorityBusyLoop() {
	return spawn(process.execPath, ['-e', "require('node:os').setPriority(19); for (;;);"], { stdio: 'ignore' });
}

/** @param {() => Promise<boolean>} predicate @param {number} ms */
async function waitFor(predicate, ms) {
	const end = performance.now() + ms;
	while (!(await predicate())) {
		if (performance.now() > end) return false;
		await new Promise((r) => setTimeout(r, 50));
	}
	return true;
}

/**
 * CPU time (ms) spent so far by each named process and by all of Postgres's processes (`/proc/<pid>/stat`
 * utime + stime); empty where there is no /proc. A Postgres process that exited takes its time with it.
 * @param {Record<string, number>} pids
 * @returns {Record<string, number>}
 */
function cpuSplitMs(pids) {
	if (!existsSync('/proc/self/stat')) return {};
	/** @param {string | number} pid */
	const ticks = (pid) => {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			return (Number(fields[11]) + Number(fields[12])) * 10;
		} catch {
			return 0;
		}
	};
	/** @type {Record<string, number>} */
	const out = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ticks(pid)]));
	out.postgres = 0;
	for (const pid of readdirSync('/proc')) {
		if (!/^\d+$/.test(pid)) continue;
		try {
			if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') out.postgres += ticks(pid);
		} catch {
			// gone meanwhile
		}
	}
	return out;
}

/** CPU time the whole machine has spent (every process, /proc/stat), in ms; 0 where there is no /proc. */
function machineCpuMs() {
	if (!existsSync('/proc/stat')) return 0;
	const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
	// user nice system idle iowait irq softirq steal: all but idle and iowait, in USER_HZ (1/100 s).
	const busy = fields.slice(0, 8).reduce((sum, v, i) => (i === 3 || i === 4 ? sum : sum + Number(v)), 0);
	return busy * 10;
}
