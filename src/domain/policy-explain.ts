import type { CompiledExpression } from './expression.js';
import type { DesiredGroup, DesiredUser } from './identity.js';
import { applyPolicy, type CompiledPolicy, type Mapped, type PolicyKind } from './identity-policy.js';
import { evaluationInput, factsOf, itemFacts } from './policy-context.js';
import { groupSchema, userSchema } from './snapshot.schema.js';
import type { SourceIdentity } from './source-identity.js';

/**
 * One identity through its input's scope and mapping, step by step, for an operator to read
 * (provision on demand): whether it is in scope and which expression says so, then the attributes
 * the mapping gives it — checked as a sync checks an item — or why it cannot be mapped.
 */

export interface ScopeVerdict {
  outcome: 'in-scope' | 'out-of-scope' | 'failed';
  reason: string;
  /** The setting that decided (`directory.scope.users`), with its expression, when there is one. */
  setting?: string;
  expression?: string;
}

export type MappingVerdict =
  | { outcome: 'mapped'; identity: DesiredUser | DesiredGroup }
  | { outcome: 'unmappable'; reason: string }
  | { outcome: 'skipped'; reason: string };

export interface PolicyVerdict {
  scope: ScopeVerdict;
  mapping: MappingVerdict;
  /** The attributes an expression computes; the others follow the source's own rule. */
  expressions: { attribute: string; setting: string; expression: string }[];
}

/**
 * `prefix`: the settings that name the input's expressions (`directory`, `okta`). `base`: the item
 * to map, when it is not the identity's own (a group whose members the user scope thinned).
 */
export function explainPolicy(
  policy: CompiledPolicy,
  prefix: string,
  kind: PolicyKind,
  identity: SourceIdentity,
  base: Readonly<Record<string, unknown>> = identity.item,
): PolicyVerdict {
  const rules = policy[kind];
  const input = evaluationInput(identity.id, factsOf(identity.item) ?? itemFacts(identity.item));
  const scope = scopeVerdict(rules.scope, `${prefix}.scope.${kind}`, kind, input);
  const expressions = [...rules.mapping].map(([attribute, expression]) => ({
    attribute,
    setting: `${prefix}.mapping.${kind}.${attribute}`,
    expression: expression.text,
  }));
  if (scope.outcome !== 'in-scope')
    return { scope, mapping: { outcome: 'skipped', reason: 'not in scope' }, expressions };
  return { scope, mapping: checked(kind, applyPolicy(rules, kind, base, input)), expressions };
}

function scopeVerdict(
  scope: CompiledExpression | undefined,
  setting: string,
  kind: PolicyKind,
  input: Parameters<CompiledExpression['evaluate']>[0],
): ScopeVerdict {
  if (scope === undefined) {
    const noun = kind === 'users' ? 'user' : 'group';
    return { outcome: 'in-scope', reason: `${setting} is empty: every ${noun} the source lists is in scope` };
  }
  const shown = { setting, expression: scope.text };
  try {
    return scope.evaluate(input) === true
      ? { outcome: 'in-scope', reason: `${setting} is true for it`, ...shown }
      : { outcome: 'out-of-scope', reason: `${setting} is false for it`, ...shown };
  } catch (error) {
    const e = error as { summary?: string; message?: string };
    return { outcome: 'failed', reason: `${setting}: ${e.summary ?? e.message ?? String(error)}`, ...shown };
  }
}

/** The mapped item as the desired state takes it, or why it is not one (as a sync reports it). */
function checked(kind: PolicyKind, mapped: Mapped): MappingVerdict {
  if (mapped.outcome === 'unmappable') return mapped;
  if (mapped.outcome === 'out-of-scope') return { outcome: 'skipped', reason: 'not in scope' };
  const parsed = (kind === 'users' ? userSchema : groupSchema).safeParse(mapped.item);
  if (parsed.success) return { outcome: 'mapped', identity: parsed.data };
  const reason = parsed.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
  return { outcome: 'unmappable', reason };
}
