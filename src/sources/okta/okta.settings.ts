import { z } from 'zod';
import { sectionOf, type SectionProblem, type SectionSettings } from '../../config/catalog.js';
import { int, optionalUrl, policyShape, type Config } from '../../config/schema.js';

/** Okta's API settings (`okta`): the org and its token, the System Log's cadence, its scope and mapping. */
const shape = z.object({
  ...policyShape,
  orgUrl: optionalUrl(['https', 'http']).default(''),
  apiToken: z.string().default(''),
  // How often the System Log is read for the changes the hooks missed (0: never).
  logPollSeconds: int(0, 86_400).default(60),
});

export type OktaSettings = z.output<typeof shape>;

export const oktaSettings: SectionSettings<typeof shape> = {
  key: 'okta',
  shape,
  env: [
    {
      env: 'OKTA_ORG_URL',
      key: 'orgUrl',
      kind: 'string',
      expected: 'an https URL, e.g. https://acme.okta.com',
    },
    { env: 'OKTA_API_TOKEN', key: 'apiToken', kind: 'string', expected: 'an Okta API token', secret: true },
    {
      env: 'OKTA_LOG_POLL_SECONDS',
      key: 'logPollSeconds',
      kind: 'integer',
      expected: 'whole seconds, 0 for never',
    },
  ],
  problems: (settings): SectionProblem[] => [
    ...(settings.orgUrl !== '' && settings.apiToken === ''
      ? [{ key: 'apiToken', message: 'required when OKTA_ORG_URL is set' }]
      : []),
    ...(settings.apiToken !== '' && settings.orgUrl === ''
      ? [{ key: 'orgUrl', message: 'required when OKTA_API_TOKEN is set' }]
      : []),
  ],
};

/** The okta section of a configuration. */
export function oktaSettingsOf(config: Config): Readonly<OktaSettings> {
  return sectionOf(oktaSettings, config);
}

/** Whether Okta's API is configured: OKTA_ORG_URL and OKTA_API_TOKEN both set. */
export function oktaApiConfigured(settings: OktaSettings): boolean {
  return settings.orgUrl !== '' && settings.apiToken !== '';
}
