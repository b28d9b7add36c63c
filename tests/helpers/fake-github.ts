import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake answers to the next requests. */
export type FakeBehaviour =
	| { kind: 'issues'; issues: unknown[]; etag?: string }
	| { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
	| { kind: 'hang' }
	| { kind: 'bad-json' };

export interface FakeRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
}

/** A stand-in for GitHub's REST API on loopback that counts and records every request. */
export interface FakeGitHub {
	/** The value for GITHUB_API_URL. */
	url: string;
	requests: FakeRequest[];
	readonly count: number;
	respondWith(behaviour: FakeBehaviour): void;
	close(): Promise<void>;
}

export async function startFakeGitHub(initial: FakeBehaviour = { kind: 'issues', issues: [] }): Promise<FakeGitHub> {
	let behaviour = initial;
	const requests: FakeRequest[] = [];
	const hanging = new Set<ServerResponse>();
	const server = createServer((req, res) => {
		requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
		const send = (status: number, body: string, headers: Record<string, string> = {}) => {
			res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
			res.end(body);
		};
		switch (behaviour.kind) {
			case 'issues': {
				const { etag, issues } = behaviour;
				if (etag && req.headers['if-none-match'] === etag) {
					res.writeHead(304, { etag });
					res.end();
				} else send(200, JSON.stringify(issues), etag ? { etag } : {});
				return;
			}
			case 'status':
				return send(behaviour.status, behaviour.body ?? '{"message":"fake failure"}', behaviour.headers);
			case 'bad-json':
				return send(200, '[{"number": 1, "title": "cut off');
			case 'hang':
				hanging.add(res);
				res.on('close', () => hanging.delete(res));
				return;
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		get count() {
			return requests.length;
		},
		respondWith(next) {
			behaviour = next;
		},
		async close() {
			for (const res of hanging) res.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	};
}

/** An issue as GitHub's list endpoint returns it (the fields the feed reads, and some it ignores). */
export function githubIssue(number: number, overrides: Record<string, unknown> = {}) {
	return {
		url: `https://api.github.com/repos/acme/portal/issues/${number}`,
		html_url: `https://github.com/acme/portal/issues/${number}`,
		id: 1000 + number,
		node_id: `I_${number}`,
		number,
		title: `Issue number ${number}`,
		user: { login: `author${number}`, id: number, type: 'User' },
		labels: [{ id: 1, name: 'bug', color: 'd73a4a', default: true, description: "Something isn't working" }],
		state: 'open',
		locked: false,
		comments: number % 7,
		created_at: '2026-01-02T03:04:05Z',
		updated_at: `2026-11-${String((number % 20) + 1).padStart(2, '0')}T10:00:00Z`,
		body: 'Body text the feed does not use.',
		...overrides
	};
}

/** A pull request as it appears in the issues list: an issue with a `pull_request` member. */
export function githubPullRequest(number: number) {
	return githubIssue(number, {
		title: `Pull request ${number}`,
		html_url: `https://github.com/acme/portal/pull/${number}`,
		pull_request: { url: `https://api.github.com/repos/acme/portal/pulls/${number}`, merged_at: null }
	});
}
