import type { Config } from '../config/schema.js';
import { Inputs } from '../domain/input.js';
import { directoryInput } from './directory/directory.input.js';
import type { DirectorySourceDeps } from './directory/directory-source.js';
import { eventsInput } from './events/events.input.js';
import { oktaInput } from './okta/okta.input.js';
import { scimInput } from './scim/scim.input.js';

/** The secrets that enable the push inputs, as they are now (re-read from their files). */
export interface InputSecrets {
  scimToken(): string;
  webhookSecret(): string;
  oktaHookSecret(): string;
}

/** Every input of a configuration (SPEC §5): SCIM push, signed events, Okta, the directory. */
export function createInputs(config: Config, secrets?: InputSecrets, deps: DirectorySourceDeps = {}): Inputs {
  const live = secrets ?? {
    scimToken: () => config.inbound.scimToken,
    webhookSecret: () => config.inbound.webhookSecret,
    oktaHookSecret: () => config.inbound.oktaHookSecret,
  };
  return new Inputs([
    scimInput(live.scimToken),
    eventsInput(live.webhookSecret),
    oktaInput(live.oktaHookSecret, config.okta),
    directoryInput(config.directory, deps),
  ]);
}
