import type { Config } from '../../config/schema.js';
import { oktaApiConfigured as apiConfigured, oktaSettingsOf, type OktaSettings } from './okta.settings.js';
import type { CompiledPolicy } from '../../domain/identity-policy.js';
import type { FullRead, Input } from '../../domain/input.js';
import { activePolicy } from '../input-policies.js';
import { policyRead } from '../policy-read.js';
import type { Comparison } from '../policy-sink.js';
import { pushInput } from '../push-input.js';
import { OktaApiClient, type OktaDirectory } from './okta-api.client.js';
import { oktaFullRead } from './okta-full-read.js';
import { oktaReadOne } from './okta-read-one.js';
import { pollOktaLog, type OktaLogPollerDeps, type PollOutcome } from './okta-log.poller.js';

/** Okta gives a list or System Log query up to 30 seconds before it answers 500 itself. */
const LIST_TIMEOUT_MS = 35_000;

/**
 * Okta as an input (SPEC §5.3): owner `okta`. It takes Okta's Event Hooks at /webhooks/okta while
 * OKTA_HOOK_SECRET is set. With OKTA_ORG_URL and OKTA_API_TOKEN it also reads Okta's API: the
 * user's full profile for a hook's event, Okta in full for a full sync of the input
 * (okta-full-read.ts), and the System Log for the events the hooks missed (okta-log.poller.ts).
 */
export function oktaInput(
  hookSecret: () => string,
  settings?: OktaSettings,
  apiToken: () => string = () => settings?.apiToken ?? '',
): Input {
  const push = pushInput('okta', '/webhooks/okta', { value: hookSecret, setting: 'OKTA_HOOK_SECRET' });
  if (!settings || !apiConfigured(settings)) return push;
  const open = () =>
    new OktaApiClient({ orgUrl: settings.orgUrl, token: apiToken, timeoutMs: LIST_TIMEOUT_MS });
  const label = `Okta's API at ${new URL(settings.orgUrl).origin}`;
  const policy = activePolicy(settings, 'okta');
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
  return { ...push, full: read(policy), health: () => ({ state: 'ok' }) };
}

/** Okta's API, when OKTA_ORG_URL and OKTA_API_TOKEN are both set. */
export function oktaApiFromConfig(config: Config, apiToken?: () => string): OktaDirectory | undefined {
  const settings = oktaSettingsOf(config);
  if (!apiConfigured(settings)) return undefined;
  return new OktaApiClient({ orgUrl: settings.orgUrl, token: apiToken ?? (() => settings.apiToken) });
}

export interface OktaLogPoll {
  poll(): Promise<PollOutcome>;
  close(): Promise<void>;
}

/** The System Log gap-filler, when Okta's API is configured and OKTA_LOG_POLL_SECONDS is not 0. */
export function oktaLogPoll(config: Config, deps: Omit<OktaLogPollerDeps, 'okta'>): OktaLogPoll | undefined {
  const settings = oktaSettingsOf(config);
  const { orgUrl, apiToken, logPollSeconds } = settings;
  if (!apiConfigured(settings) || logPollSeconds <= 0) return undefined;
  const okta = new OktaApiClient({ orgUrl, token: () => apiToken, timeoutMs: LIST_TIMEOUT_MS });
  return { poll: () => pollOktaLog({ ...deps, okta }), close: () => okta.close() };
}
