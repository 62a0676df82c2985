import type { CompiledPolicy } from '../../../domain/identity-policy.js';
import { groupFacts, type GroupRef, type IdentityFactsSource } from '../../../domain/policy-context.js';
import { dnKey } from './ldap-dn.js';
import type { MappedGroup } from './ldap-entries.js';
import type { EntryValues } from './ldap-values.js';

/**
 * What an LDAP read must do for the scopes and mappings it applies (domain/identity-policy.ts):
 * ask for the attributes their expressions read, attach each entry's facts to its item, and —
 * when a user expression reads group membership — read the groups before the users, so that each
 * user's groups (directly or through nesting) are known when it is read.
 */
export interface PolicyNeeds {
  users: readonly string[];
  groups: readonly string[];
  membership: boolean;
  facts: boolean;
}

export const NO_NEEDS: PolicyNeeds = { users: [], groups: [], membership: false, facts: false };

export function policyNeeds(policies: readonly CompiledPolicy[]): PolicyNeeds {
  const custom = policies.filter((p) => !p.isDefault);
  return {
    users: [...new Set(custom.flatMap((p) => p.users.attributes))],
    groups: [...new Set(custom.flatMap((p) => p.groups.attributes))],
    membership: custom.some((p) => p.users.readsMembership),
    facts: custom.length > 0,
  };
}

/** An entry's attributes, DN and groups as an expression reads them. */
export function entryFacts(entry: EntryValues, groups: readonly GroupRef[] = []): IdentityFactsSource {
  return {
    dn: entry.dn,
    attribute: (name) => entry.text(name)[0] ?? '',
    values: (name) => entry.text(name),
    ...groupFacts(groups),
  };
}

/**
 * The groups of the read, as the users in them see it: a member DN's groups, directly and through
 * nesting (a group in a group in scope), cycles cut.
 */
export class LdapMemberships {
  private readonly byMember = new Map<string, number[]>();
  private readonly ancestors = new Map<number, number[]>();

  constructor(private readonly groups: readonly { dn: string; group: MappedGroup }[]) {
    groups.forEach(({ group }, position) => {
      for (const member of group.memberDns) {
        const key = dnKey(member);
        const list = this.byMember.get(key);
        if (list) list.push(position);
        else this.byMember.set(key, [position]);
      }
    });
  }

  /** The groups an entry is in, directly or through nesting. */
  of(dn: string): GroupRef[] {
    const found = new Set<number>();
    for (const direct of this.byMember.get(dnKey(dn)) ?? []) {
      found.add(direct);
      for (const up of this.above(direct)) found.add(up);
    }
    return [...found].map((at) => {
      const held = this.groups[at];
      return { id: held?.group.item.id ?? '', name: held?.group.item.displayName ?? '', dn: held?.dn ?? '' };
    });
  }

  /** Every group that holds a group, up the nesting. */
  private above(position: number): number[] {
    const known = this.ancestors.get(position);
    if (known) return known;
    const seen = new Set<number>([position]);
    const queue = [position];
    for (let i = 0; i < queue.length; i++) {
      const dn = this.groups[queue[i] ?? -1]?.dn;
      for (const parent of dn === undefined ? [] : (this.byMember.get(dnKey(dn)) ?? [])) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        queue.push(parent);
      }
    }
    seen.delete(position);
    const out = [...seen];
    this.ancestors.set(position, out);
    return out;
  }
}
