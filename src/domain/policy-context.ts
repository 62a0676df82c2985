import type { EvaluationInput } from './expression.js';

/**
 * What a scope or mapping expression reads of one identity: the source's attributes, its DN (LDAP)
 * and the groups it is in. A source that knows more than its snapshot item says (an LDAP entry's
 * attributes, an Okta profile) attaches its facts to the item it hands on (attachFacts); for any
 * other item, the item's own attributes are the facts (itemFacts).
 */

export interface IdentityFactsSource {
  readonly dn: string;
  attribute(name: string): string;
  values(name: string): string[];
  /** Groups the identity is in (LDAP: their DNs, directly or through nesting; otherwise names). */
  readonly groups: readonly string[];
  /** Group DNs, names and ids it is in, as membership keys (memberKey). */
  readonly memberKeys: ReadonlySet<string>;
}

const FACTS = Symbol('identity facts');

export function attachFacts<T extends object>(item: T, facts: IdentityFactsSource): T {
  (item as Record<symbol, unknown>)[FACTS] = facts;
  return item;
}

export function factsOf(item: unknown): IdentityFactsSource | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  return (item as Record<symbol, IdentityFactsSource | undefined>)[FACTS];
}

/** A group's DN, name or id as memberOf compares it: case and spaces around separators aside. */
export function memberKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s*([,=+])\s*/g, '$1');
}

/** A group an identity is in, as the sources that know it say (id, name, DN when LDAP). */
export interface GroupRef {
  id: string;
  name: string;
  dn?: string;
}

export function groupFacts(groups: readonly GroupRef[]): Pick<IdentityFactsSource, 'groups' | 'memberKeys'> {
  const keys = new Set<string>();
  for (const g of groups) for (const k of [g.id, g.name, g.dn]) if (k) keys.add(memberKey(k));
  return { groups: groups.map((g) => g.dn ?? g.name), memberKeys: keys };
}

/**
 * A snapshot item's attributes as facts: every leaf value by its own name (`userName`,
 * `givenName` of `name`, `department` of the enterprise extension or an Okta profile), the first
 * one found for a name; `email` is the primary e-mail; booleans and numbers as text.
 */
export function itemFacts(item: unknown, groups: readonly GroupRef[] = []): IdentityFactsSource {
  const byName = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    const list = byName.get(key);
    if (list) list.push(value);
    else byName.set(key, [value]);
  };
  const visit = (value: unknown, name: string, depth: number) => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      add(name, String(value));
    } else if (Array.isArray(value) && depth < 4) {
      for (const v of value) visit(v, name, depth + 1);
    } else if (typeof value === 'object' && value !== null && depth < 4) {
      for (const [k, v] of Object.entries(value)) visit(v, k === 'value' && name ? name : k, depth + 1);
    }
  };
  visit(item, '', 0);
  const emails = Array.isArray((item as { emails?: unknown })?.emails)
    ? ((item as { emails: { value?: unknown; primary?: unknown }[] }).emails ?? [])
    : [];
  const primary = emails.find((e) => e.primary === true) ?? emails[0];
  if (typeof primary?.value === 'string') byName.set('email', [primary.value]);
  const values = (name: string) => byName.get(name.toLowerCase()) ?? [];
  return { dn: '', attribute: (name) => values(name)[0] ?? '', values, ...groupFacts(groups) };
}

/** The evaluation input of an identity: its id and facts. */
export function evaluationInput(id: string, facts: IdentityFactsSource): EvaluationInput {
  return {
    variable: (name) =>
      name === 'id' ? id : name === 'dn' ? facts.dn : name === 'groups' ? [...facts.groups] : '',
    attribute: (name) => facts.attribute(name),
    values: (name) => facts.values(name),
    memberOf: (group) => facts.memberKeys.has(memberKey(group)),
  };
}
