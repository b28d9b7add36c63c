import { REQUIRED_CHAIN_ID } from '$lib/chain/chain';
import type { Database } from '../db/client';
import { currentForm } from '../forms/versions';
import { ConfigError } from '../platform/config';
import { polygonRpc } from '../chain/polygon';
import { storedRules } from './rules-schema';
import { logger } from '../platform/observability';

/**
 * The start-up check of eligibility rules (docs/eligibility.md): a current form with rules needs
 * POLYGON_RPC_URL, and an endpoint that answers as another chain than 137 is refused, both as a
 * configuration error naming it. An endpoint that does not answer now is only warned about:
 * submissions answer 503 until it does.
 */
export async function eligibilityStartProblem(db: Database, polygonRpcUrl: string | null): Promise<ConfigError | null> {
	const rules = storedRules((await currentForm(db)).eligibility);
	if (rules === null) return null;
	if (!polygonRpcUrl)
		return new ConfigError([
			{
				variable: 'POLYGON_RPC_URL',
				problem: 'required: the application form has eligibility rules, checked on chain 137.'
			}
		]);
	const chainId = await polygonRpc(polygonRpcUrl)
		.client.getChainId()
		.catch(() => null);
	if (chainId === null) {
		logger.warn(
			'POLYGON_RPC_URL did not answer at start: applications answer 503 eligibility_unavailable until it does.'
		);
		return null;
	}
	if (chainId !== REQUIRED_CHAIN_ID)
		return new ConfigError([
			{
				variable: 'POLYGON_RPC_URL',
				problem: `serves chain ${chainId}, not ${REQUIRED_CHAIN_ID}: the form's eligibility rules are checked on Polygon.`
			}
		]);
	return null;
}
