import type { Config } from '../config/schema.js';
import { BridgeError } from '../domain/errors.js';
import { compilePolicy, type CompiledPolicy } from '../domain/identity-policy.js';

/** The inputs read in full that have a scope and mapping, by the settings prefix that names them. */
type PolicySection = Pick<Config['directory'], 'scope' | 'mapping'>;

/**
 * The scope and mapping an input's settings give, compiled; settings that do not compile throw
 * `invalid_input` with one problem per expression (`directory.mapping.users.userName: at line 1,
 * column 6: …`) — at start-up, before anything is read.
 */
export function activePolicy(section: PolicySection, prefix: 'directory' | 'okta'): CompiledPolicy {
  const { policy, problems } = compilePolicy({ scope: section.scope, mapping: section.mapping }, prefix);
  if (policy) return policy;
  throw new BridgeError('invalid_input', `Invalid scope or mapping: ${problems.join('; ')}`, { problems });
}

/** Every problem of the configured scopes and mappings, one line each (start-up, check-config). */
export function policyProblems(config: Pick<Config, 'directory' | 'okta'>): string[] {
  return (['directory', 'okta'] as const).flatMap((prefix) => {
    const section = config[prefix];
    return compilePolicy({ scope: section.scope, mapping: section.mapping }, prefix).problems;
  });
}
