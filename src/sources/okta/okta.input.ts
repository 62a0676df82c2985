import type { Config } from '../../config/schema.js';
import type { Input } from '../../domain/input.js';
import { pushInput } from '../push-input.js';
import { OktaApiClient, type OktaDirectory } from './okta-api.client.js';

/**
 * Okta as an input (SPEC §5.3): owner `okta`. It takes Okta's Event Hooks at /webhooks/okta while
 * OKTA_HOOK_SECRET is set; with OKTA_ORG_URL and OKTA_API_TOKEN it also reads Okta's API (the
 * user's full profile for a hook's event).
 */
export function oktaInput(hookSecret: () => string): Input {
  return pushInput('okta', '/webhooks/okta', { value: hookSecret, setting: 'OKTA_HOOK_SECRET' });
}

/** Okta's API, when OKTA_ORG_URL and OKTA_API_TOKEN are both set. */
export function oktaApiFromConfig(config: Config): OktaDirectory | undefined {
  const { orgUrl, apiToken } = config.okta;
  if (orgUrl === '' || apiToken === '') return undefined;
  return new OktaApiClient({ orgUrl, token: () => apiToken });
}
