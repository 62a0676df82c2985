import type { CompiledPolicy } from '../domain/identity-policy.js';
import type { FullRead } from '../domain/input.js';
import type { GroupRef } from '../domain/policy-context.js';
import type { ReadOptions, SnapshotSink } from '../domain/snapshot-sink.js';
import { PolicySink, type Comparison, type Memberships } from './policy-sink.js';

/**
 * An input's full read under a scope and mapping (policy-sink.ts). The default policy reads the
 * source as it is, with nothing in between. A policy that reads group membership from a source
 * whose items state it on the groups (file, upstream SCIM, Okta: groups come after users) has the
 * source read twice: once for the groups' members, then for the identities; `membershipPass`
 * false: the source attaches membership to its items itself (LDAP).
 */
export function policyRead(
  raw: FullRead,
  policy: CompiledPolicy,
  options: { comparison?: Comparison; membershipPass: boolean },
): FullRead {
  const { comparison } = options;
  if (policy.isDefault && comparison === undefined) return raw;
  const needsMembers =
    options.membershipPass &&
    [policy, ...(comparison ? [comparison.before] : [])].some((p) => p.users.readsMembership);
  return {
    label: raw.label,
    sourceName: raw.sourceName,
    stream: async (sink, readOptions) => {
      const members = needsMembers ? await memberships(raw, readOptions) : new Map();
      await raw.stream(new PolicySink(sink, policy, members, comparison), readOptions);
    },
  };
}

/** The groups each user is in, from a read of the source that keeps only its groups. */
async function memberships(raw: FullRead, options?: ReadOptions): Promise<Memberships> {
  const byUser = new Map<string, GroupRef[]>();
  const tables = new Map<string, Map<string, string>>();
  const table = (name: string) => tables.get(name) ?? tables.set(name, new Map()).get(name)!;
  const sink: SnapshotSink = {
    add: (kind, items) => {
      if (kind === 'groups') for (const item of items) addGroup(byUser, item);
      return Promise.resolve();
    },
    problem: () => undefined,
    knownUsers: (ids) => Promise.resolve(ids.map(() => true)),
    remember: (name, entries) => {
      for (const [key, value] of entries) table(name).set(key, value);
      return Promise.resolve();
    },
    recall: (name, keys) => Promise.resolve(keys.map((key) => table(name).get(key))),
  };
  await raw.stream(sink, options);
  return byUser;
}

function addGroup(byUser: Map<string, GroupRef[]>, item: unknown): void {
  if (typeof item !== 'object' || item === null) return;
  const { id, displayName, members } = item as Record<string, unknown>;
  if (typeof id !== 'string' || !Array.isArray(members)) return;
  const ref = { id, name: typeof displayName === 'string' ? displayName : id };
  for (const member of members) {
    if (typeof member !== 'string') continue;
    const list = byUser.get(member);
    if (list) list.push(ref);
    else byUser.set(member, [ref]);
  }
}
