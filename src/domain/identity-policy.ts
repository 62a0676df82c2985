import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  compileExpression,
  type CompiledExpression,
  type EvaluationInput,
  type Vocabulary,
} from './expression.js';

/**
 * The scope and mapping of an input read in full (docs/scope-and-mapping.md): which of the
 * source's users and groups exist on the platform (a boolean expression per kind; empty: every one
 * the source lists) and how each managed attribute is computed (a string expression, `active` a
 * boolean; empty: the source's own rule, as before scopes and mappings existed). The same shape is
 * a setting (`directory.scope`, `directory.mapping`, `okta.…`) and a preview's candidate.
 */

export const USER_MAPPED = ['userName', 'givenName', 'familyName', 'email', 'active', 'externalId'] as const;
export const GROUP_MAPPED = ['displayName', 'externalId'] as const;
export type UserMapped = (typeof USER_MAPPED)[number];
export type GroupMapped = (typeof GROUP_MAPPED)[number];
export type PolicyKind = 'users' | 'groups';

const expr = () => z.string({ error: 'not a string (a CEL expression)' }).default('');
const fields = <K extends string>(keys: readonly K[]) =>
  z.strictObject(Object.fromEntries(keys.map((k) => [k, expr()])) as Record<K, ReturnType<typeof expr>>);

export const policySchema = z.strictObject({
  scope: z.strictObject({ users: expr(), groups: expr() }).prefault({}),
  mapping: z
    .strictObject({ users: fields(USER_MAPPED).prefault({}), groups: fields(GROUP_MAPPED).prefault({}) })
    .prefault({}),
});
export type PolicySettings = z.output<typeof policySchema>;

/** What every input's expressions may name besides its attributes (`dn` is '' outside LDAP). */
export const VOCABULARY: Readonly<Record<PolicyKind, Vocabulary>> = {
  users: { id: 'string', dn: 'string', groups: 'list<string>' },
  groups: { id: 'string', dn: 'string' },
};

export interface KindPolicy {
  readonly scope?: CompiledExpression;
  readonly mapping: ReadonlyMap<string, CompiledExpression>;
  /** Source attributes its expressions read. */
  readonly attributes: readonly string[];
  /** Whether its expressions read group membership. */
  readonly readsMembership: boolean;
}

export interface CompiledPolicy {
  readonly settings: PolicySettings;
  /** Identifies the settings: a sync records the one it used (a changed one is guarded). */
  readonly fingerprint: string;
  /** No expression at all: every source reads as it did before scopes and mappings. */
  readonly isDefault: boolean;
  readonly users: KindPolicy;
  readonly groups: KindPolicy;
}

/** The outcome of one identity. */
export type Mapped =
  | { outcome: 'mapped'; item: Record<string, unknown> }
  | { outcome: 'out-of-scope' }
  | { outcome: 'unmappable'; reason: string };

/** Compiles settings; `problems` name the setting under `prefix` and the position in the expression. */
export function compilePolicy(
  given: unknown,
  prefix: string,
): { policy: CompiledPolicy; problems: string[] } | { policy?: undefined; problems: string[] } {
  const parsed = policySchema.safeParse(given ?? {});
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((i) => `${[prefix, ...i.path.map(String)].join('.')}: ${i.message}`),
    };
  }
  const settings = parsed.data;
  const problems: string[] = [];
  const kind = (name: PolicyKind, mapping: Readonly<Record<string, string>>): KindPolicy => {
    const compile = (text: string, path: string, want: 'bool' | 'string') => {
      if (text.trim() === '') return undefined;
      const result = compileExpression(text, VOCABULARY[name], want);
      if ('problem' in result) problems.push(`${prefix}.${path}: ${result.problem}`);
      return 'expression' in result ? result.expression : undefined;
    };
    const scope = compile(settings.scope[name], `scope.${name}`, 'bool');
    const mapped = new Map<string, CompiledExpression>();
    for (const [attribute, text] of Object.entries(mapping)) {
      const want = attribute === 'active' ? 'bool' : 'string';
      const compiled = compile(text, `mapping.${name}.${attribute}`, want);
      if (compiled) mapped.set(attribute, compiled);
    }
    const all = [...(scope ? [scope] : []), ...mapped.values()];
    return {
      ...(scope ? { scope } : {}),
      mapping: mapped,
      attributes: [...new Set(all.flatMap((e) => e.attributes))],
      readsMembership: all.some((e) => e.readsMembership),
    };
  };
  const users = kind('users', settings.mapping.users);
  const groups = kind('groups', settings.mapping.groups);
  if (problems.length > 0) return { problems };
  const isDefault = [settings.scope.users, settings.scope.groups, ...Object.values(settings.mapping.users)]
    .concat(Object.values(settings.mapping.groups))
    .every((text) => text.trim() === '');
  return { policy: { settings, fingerprint: fingerprintOf(settings), isDefault, users, groups }, problems };
}

/** The settings' fingerprint: blanks are defaults, so `''` and `'  '` are the same configuration. */
export function fingerprintOf(settings: PolicySettings): string {
  const trim = (record: Readonly<Record<string, string>>) =>
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, (record[k] ?? '').trim()]),
    );
  const normal = {
    scope: trim(settings.scope),
    mapping: { users: trim(settings.mapping.users), groups: trim(settings.mapping.groups) },
  };
  return createHash('sha256').update(JSON.stringify(normal)).digest('hex').slice(0, 16);
}

/** The default policy: no scope, the source's own mapping. */
export const DEFAULT_POLICY = compilePolicy({}, '').policy as CompiledPolicy;

/**
 * Applies a kind's scope and mapping to one identity: `base` is the item the source's own mapping
 * made (a copy is changed), `input` what the expressions read. An expression that fails, or a
 * userName / displayName that comes out empty, makes the identity unmappable — that one alone.
 */
export function applyPolicy(
  policy: KindPolicy,
  kind: PolicyKind,
  base: Readonly<Record<string, unknown>>,
  input: EvaluationInput,
): Mapped {
  let current = 'scope';
  try {
    if (policy.scope && policy.scope.evaluate(input) !== true) return { outcome: 'out-of-scope' };
    const item: Record<string, unknown> = { ...base };
    for (const [attribute, expression] of policy.mapping) {
      current = `mapping.${kind}.${attribute}`;
      setMapped(item, attribute, expression.evaluate(input));
    }
    const name = kind === 'users' ? 'userName' : 'displayName';
    if (typeof item[name] !== 'string' || (item[name] as string).trim() === '') {
      return { outcome: 'unmappable', reason: `${name}: empty` };
    }
    return { outcome: 'mapped', item };
  } catch (error) {
    const e = error as { summary?: string; message?: string };
    return { outcome: 'unmappable', reason: `${current}: ${e.summary ?? e.message ?? String(error)}` };
  }
}

/** The longest value a mapping may give an attribute: a longer one makes the identity unmappable. */
export const MAX_MAPPED_LENGTH = 2048;

function setMapped(item: Record<string, unknown>, attribute: string, value: unknown): void {
  if (attribute === 'active') {
    item.active = value === true;
    return;
  }
  const text = typeof value === 'string' ? value : '';
  if (text.length > MAX_MAPPED_LENGTH) {
    throw new Error(`a value of ${text.length} characters, over ${MAX_MAPPED_LENGTH}`);
  }
  if (attribute === 'givenName' || attribute === 'familyName') {
    const name = { ...((item.name as Record<string, unknown> | undefined) ?? {}) };
    if (text === '') delete name[attribute];
    else name[attribute] = text;
    if (Object.keys(name).length > 0) item.name = name;
    else delete item.name;
  } else if (attribute === 'email') {
    const others = Array.isArray(item.emails)
      ? (item.emails as { value?: unknown }[]).filter(
          (e) => typeof e.value === 'string' && e.value.toLowerCase() !== text.toLowerCase(),
        )
      : [];
    const rest = others.map((e) => ({ ...e, primary: false }));
    const emails = text === '' ? rest : [{ value: text, type: 'work', primary: true }, ...rest];
    if (emails.length > 0) item.emails = emails;
    else delete item.emails;
  } else if (text === '' && attribute === 'externalId') {
    delete item.externalId;
  } else {
    item[attribute] = text;
  }
}

/**
 * Told each identity as two policies map it — the one in force and a candidate (a preview), or
 * the last sync's and the one in force now (a changed configuration). `false`: leave the identity
 * out of the read (it collides with one seen before).
 */
export interface PolicyObserver {
  compare(kind: PolicyKind, id: string, label: string | undefined, before: Mapped, after: Mapped): boolean;
}
