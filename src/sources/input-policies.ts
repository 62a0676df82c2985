import { BridgeError } from '../domain/errors.js';
import { compilePolicy, type CompiledPolicy, type PolicySettings } from '../domain/identity-policy.js';

/** A section holding an input's scope and mapping. */
type PolicySection = Pick<PolicySettings, 'scope' | 'mapping'>;

/**
 * The scope and mapping an input's settings give, compiled; settings that do not compile throw
 * `invalid_input` with one problem per expression (`directory.mapping.users.userName: at line 1,
 * column 6: …`) — at start-up, before anything is read.
 */
export function activePolicy(section: PolicySection, prefix: string): CompiledPolicy {
  const { policy, problems } = compilePolicy({ scope: section.scope, mapping: section.mapping }, prefix);
  if (policy) return policy;
  throw new BridgeError('invalid_input', `Invalid scope or mapping: ${problems.join('; ')}`, { problems });
}

/** Every problem of the scopes and mappings of these sections, one line each (start-up, check-config). */
export function policyProblems(sections: readonly { prefix: string; section: PolicySection }[]): string[] {
  return sections.flatMap(
    ({ prefix, section }) =>
      compilePolicy({ scope: section.scope, mapping: section.mapping }, prefix).problems,
  );
}
