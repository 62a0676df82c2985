import type { ApiMetrics } from '../../api-client/api-metrics.js';
import type { Config } from '../../config/schema.js';
import type { CompiledPolicy } from '../../domain/identity-policy.js';
import type { FullRead, Input } from '../../domain/input.js';
import type { Logger } from '../../ops/logger.js';
import { activePolicy } from '../input-policies.js';
import { policyRead } from '../policy-read.js';
import type { Comparison } from '../policy-sink.js';
import { pushInput } from '../push-input.js';
import { OktaApiClient, type OktaDirectory } from './okta-api.client.js';
import { oktaFullRead } from './okta-full-read.js';
import { oktaReadOne } from './okta-read-one.js';
import { OktaSystemLogDelta } from './okta-system-log.delta.js';
import { oktaApiConfigured as apiConfigured, oktaSettingsOf, type OktaSettings } from './okta.settings.js';

/** Okta gives a list or System Log query up to 30 seconds before it answers 500 itself. */
const LIST_TIMEOUT_MS = 35_000;

export interface OktaInputDeps {
  /** OKTA_API_TOKEN as it is now (re-read from its file when it changes). */
  apiToken?: () => string;
  metrics?: ApiMetrics;
  logger?: Logger;
}

/**
 * Okta as an input (SPEC §5.3): owner `okta`. It takes Okta's Event Hooks at /webhooks/okta while
 * OKTA_HOOK_SECRET is set. With OKTA_ORG_URL and OKTA_API_TOKEN it also reads Okta's API: the
 * user's full profile for a hook's event, Okta in full for a full sync of the input
 * (okta-full-read.ts), and — its change read, every OKTA_LOG_POLL_SECONDS — the System Log for the
 * events the hooks missed (okta-system-log.delta.ts). Hooks and both reads are mapped by okta's scope
 * and mapping.
 */
export function oktaInput(
  hookSecret: () => string,
  settings?: OktaSettings,
  deps: OktaInputDeps = {},
): Input {
  const hooks = pushInput('okta', '/webhooks/okta', { value: hookSecret, setting: 'OKTA_HOOK_SECRET' });
  if (!settings) return hooks;
  const policy = activePolicy(settings, 'okta');
  const push = { ...hooks, policy };
  if (!apiConfigured(settings)) return push;
  const open = () => openOkta(settings, deps, LIST_TIMEOUT_MS);
  const origin = new URL(settings.orgUrl).origin;
  const label = `Okta's API at ${origin}`;
  // Okta lists groups after users: a scope reading membership reads Okta twice (policy-read.ts).
  const read = (after: CompiledPolicy, comparison?: Comparison): FullRead => ({
    ...policyRead(oktaFullRead(label, open, !after.isDefault || comparison !== undefined), after, {
      membershipPass: true,
      ...(comparison ? { comparison } : {}),
    }),
    policy: {
      setting: 'okta',
      active: policy,
      compared: (before, next, observer) => read(next, { before, observer }),
    },
    readOne: oktaReadOne(open, after.users.readsMembership),
  });
  const changes = new OktaSystemLogDelta(settings.logPollSeconds, open, origin, {
    readsMembership: policy.users.readsMembership,
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
  return {
    ...push,
    full: read(policy),
    ...(settings.logPollSeconds > 0 ? { delta: changes } : {}),
    health: () => ({ state: 'ok' }),
    close: () => changes.close(),
  };
}

/** Okta's API for hook events, when OKTA_ORG_URL and OKTA_API_TOKEN are both set. */
export function oktaApiFromConfig(config: Config, deps: OktaInputDeps = {}): OktaDirectory | undefined {
  const settings = oktaSettingsOf(config);
  return apiConfigured(settings) ? openOkta(settings, deps) : undefined;
}

function openOkta(settings: OktaSettings, deps: OktaInputDeps, timeoutMs?: number): OktaApiClient {
  return new OktaApiClient({
    orgUrl: settings.orgUrl,
    token: deps.apiToken ?? (() => settings.apiToken),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
}
