// The folders' import rules (eslint.boundaries.js, each README's "May import") are lint errors: an import
// that runs back up the layers fails `npm run lint`, and the project's own config applies the rules.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { boundaries } from '../../eslint.boundaries.js';

const RULE = '@typescript-eslint/no-restricted-imports';

const boundariesOnly = new ESLint({
	cwd: process.cwd(),
	overrideConfigFile: true,
	overrideConfig: [
		{ files: ['**/*.ts'], languageOptions: { parser: ts.parser }, plugins: { '@typescript-eslint': ts.plugin } },
		...boundaries
	]
});

async function refusals(filePath: string, code: string): Promise<string[]> {
	const [result] = await boundariesOnly.lintText(code, { filePath });
	return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe('import boundaries', () => {
	it('refuse an import back up the layers, in either spelling', async () => {
		expect(await refusals('src/lib/server/webhooks/new.ts', "import { castVote } from '../reviews/votes';")).toEqual([
			expect.stringMatching(/webhooks\/ may not import reviews\//)
		]);
		expect(
			await refusals('src/lib/server/db/new.ts', "import { runtime } from '$lib/server/platform/runtime';")
		).toHaveLength(1);
		expect(
			await refusals('src/lib/server/reviews/new.ts', "import { applyMoves } from '../applications/moves';")
		).toHaveLength(1);
		expect(
			await refusals('src/lib/wallet/new.ts', "import { memberOf } from '$lib/server/auth/member-of';")
		).toHaveLength(1);
	});

	it('hold the composition root (platform/runtime.ts) to the session codec: configuration goes down as arguments, no domain is handed it', async () => {
		const runtimeFile = 'src/lib/server/platform/runtime.ts';
		expect(await refusals(runtimeFile, "import { createSessionCodec } from '../auth/session';")).toEqual([]);
		expect(await refusals(runtimeFile, "import { createDb } from '../db/client';")).toEqual([]);
		expect(await refusals(runtimeFile, "import { reviewerSet } from '../reviews/roster';")).toEqual([
			expect.stringMatching(/runtime\.ts may not import reviews\//)
		]);
		expect(await refusals(runtimeFile, "import { listTeam } from '$lib/server/team/team';")).toHaveLength(1);
		expect(await refusals(runtimeFile, "import { verifyTxHash } from '../applications/tx-verify';")).toHaveLength(1);
		expect(await refusals(runtimeFile, "import { memberOf } from '../auth/member-of';")).toHaveLength(1);
	});

	it('keep the outbox below its channels: it imports neither webhooks/ nor notifications/, and they import its types from it, not from each other', async () => {
		expect(
			await refusals('src/lib/server/outbox/new.ts', "import { WebhookSender } from '../webhooks/deliver';")
		).toEqual([expect.stringMatching(/outbox\/ may not import webhooks\//)]);
		expect(
			await refusals(
				'src/lib/server/outbox/new.ts',
				"import type { PushSender } from '$lib/server/notifications/push-sender';"
			)
		).toHaveLength(1);
		expect(
			await refusals(
				'src/lib/server/notifications/new.ts',
				"import type { WebhookEndpoint } from '../webhooks/endpoints';"
			)
		).toHaveLength(1);
		expect(
			await refusals('src/lib/server/webhooks/new.ts', "import { PushSender } from '../notifications/push-sender';")
		).toHaveLength(1);
		expect(
			await refusals('src/lib/server/notifications/new.ts', "import type { Channel } from '../outbox/channel';")
		).toEqual([]);
		expect(await refusals('src/lib/server/webhooks/new.ts', "import { OriginPools } from '../outbox/http';")).toEqual(
			[]
		);
		// The one assembly of the channels is the composition root's.
		expect(
			await refusals(
				'src/lib/server/platform/deliveries.ts',
				"import { PushSender } from '../notifications/push-sender';"
			)
		).toEqual([]);
		expect(
			await refusals('src/lib/server/platform/other.ts', "import { PushSender } from '../notifications/push-sender';")
		).toHaveLength(1);
	});

	it('allow what a README allows: the layers below, type-only imports, one named module', async () => {
		expect(await refusals('src/lib/server/webhooks/new.ts', "import { db } from '../db/client';")).toEqual([]);
		expect(
			await refusals('src/lib/server/webhooks/new.ts', "import type { SignedInMember } from '../auth/guards';")
		).toEqual([]);
		expect(
			await refusals('src/lib/server/webhooks/new.ts', "import { requireAdmin } from '../auth/guards';")
		).toHaveLength(1);
		expect(await refusals('src/lib/server/eligibility/new.ts', "import { polygon } from '../chain/polygon';")).toEqual(
			[]
		);
		expect(await refusals('src/lib/server/eligibility/new.ts', "import { steps } from '../chain/steps';")).toHaveLength(
			1
		);
		expect(
			await refusals('src/lib/server/webhooks/new.test.ts', "import { castVote } from '../reviews/votes';")
		).toEqual([]);
	});

	it('are part of the project’s lint configuration', async () => {
		const config = (await new ESLint({ cwd: process.cwd() }).calculateConfigForFile(
			'src/lib/server/webhooks/deliver.ts'
		)) as {
			rules: Record<string, unknown[]>;
		};
		expect(config.rules[RULE]?.[0]).toBe(2);
	});
});

// Issue 56: a reader finds what a folder holds and may import in its README; Paraglide's generated folder
// (not in git) brings its own.
describe('every folder of src/lib and src/lib/server', () => {
	const folders = ['src/lib', 'src/lib/server'].flatMap((parent) =>
		readdirSync(parent, { withFileTypes: true })
			.filter((entry) => entry.isDirectory() && !(parent === 'src/lib' && ['server', 'paraglide'].includes(entry.name)))
			.map((entry) => join(parent, entry.name))
	);

	it.each(folders)('%s has a README', (folder) => {
		expect(existsSync(join(folder, 'README.md'))).toBe(true);
	});
});
