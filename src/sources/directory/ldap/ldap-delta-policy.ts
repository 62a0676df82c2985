import type { DesiredChange } from '../../../domain/desired-change.js';
import { BridgeError } from '../../../domain/errors.js';
import { applyPolicy, type CompiledPolicy, type Mapped } from '../../../domain/identity-policy.js';
import { evaluationInput } from '../../../domain/policy-context.js';
import { groupSchema, userSchema } from '../../../domain/snapshot.schema.js';
import type { LdapMapping } from './ldap-attribute-map.js';
import { mapUser } from './ldap-entries.js';
import { entryFacts } from './ldap-policy.js';
import type { EntryValues } from './ldap-values.js';

const signal = { source: 'directory' as const, detail: 'directory change (delta read)' };

type Skipped = { dn: string; reason: string }[];

/**
 * A delta read under the directory's scope and mapping (docs/scope-and-mapping.md): a changed
 * user or group is mapped as a full read maps it; one that left the scope is deleted (a user
 * deprovisioned), one that cannot be mapped is skipped with its reason. A scope or mapping that
 * reads group membership cannot follow a changed group's members without reading them all: the
 * input is then read in full.
 */
export function refuseMembershipDelta(policy: CompiledPolicy | undefined, groupsChanged: boolean): void {
  if (!policy?.users.readsMembership || !groupsChanged) return;
  throw new BridgeError(
    'watermark_untrusted',
    'groups changed and the directory scope or mapping reads group membership: the input is read in full',
  );
}

/** A changed user as the policy maps it (`mapping`: the preset's, for the base item). */
export function policyUserChange(
  entry: EntryValues,
  mapping: LdapMapping,
  policy: CompiledPolicy,
  skipped: Skipped,
): DesiredChange[] {
  const id = entry.first(mapping.users.id)?.values[0];
  if (id === undefined) {
    skipped.push({ dn: entry.dn, reason: 'no value for id' });
    return [];
  }
  const result = mapEntry(policy, 'users', mapUser(entry, mapping.users) ?? { id }, id, entry);
  if (result.outcome === 'out-of-scope') return [{ op: 'deleteUser', id, signal }];
  if (result.outcome === 'unmappable') {
    skipped.push({ dn: entry.dn, reason: result.reason });
    return [];
  }
  const parsed = userSchema.safeParse(result.item);
  if (parsed.success) return [{ op: 'upsertUser', user: parsed.data, mode: 'force', signal }];
  skipped.push({ dn: entry.dn, reason: issues(parsed.error.issues) });
  return [];
}

/** A changed group (members flattened) as the policy maps it. */
export function policyGroupChange(
  entry: EntryValues,
  item: { id: string },
  policy: CompiledPolicy,
  skipped: Skipped,
): DesiredChange[] {
  const result = mapEntry(policy, 'groups', item, item.id, entry);
  if (result.outcome === 'out-of-scope') return [{ op: 'deleteGroup', id: item.id, signal }];
  if (result.outcome === 'unmappable') {
    skipped.push({ dn: entry.dn, reason: result.reason });
    return [];
  }
  const parsed = groupSchema.safeParse(result.item);
  if (parsed.success) return [{ op: 'upsertGroup', group: parsed.data, mode: 'force', signal }];
  skipped.push({ dn: entry.dn, reason: issues(parsed.error.issues) });
  return [];
}

/** Whether a member entry is a user the policy keeps (in scope and mappable). */
export function keepsMember(policy: CompiledPolicy | undefined, entry: EntryValues, id: string): boolean {
  if (!policy || policy.isDefault) return true;
  return mapEntry(policy, 'users', { id, userName: 'member' }, id, entry).outcome === 'mapped';
}

function mapEntry(
  policy: CompiledPolicy,
  kind: 'users' | 'groups',
  base: Readonly<Record<string, unknown>>,
  id: string,
  entry: EntryValues,
): Mapped {
  return applyPolicy(policy[kind], kind, base, evaluationInput(id, entryFacts(entry)));
}

function issues(list: readonly { path: PropertyKey[]; message: string }[]): string {
  return list.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
}
