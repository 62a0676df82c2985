import type { PolicyKind } from '../../../domain/identity-policy.js';
import { attachFacts } from '../../../domain/policy-context.js';
import type { OneRead, SourceIdentity } from '../../../domain/source-identity.js';
import type { LdapMapping, LdapPreset } from './ldap-attribute-map.js';
import { isUnder } from './ldap-context.js';
import { withLdapReader, type LdapDeltaSettings } from './ldap-delta-session.js';
import { dnKey } from './ldap-dn.js';
import { mapGroup, mapUser } from './ldap-entries.js';
import { AndFilter, EqualityFilter, FilterParser, OrFilter, type Filter } from 'ldapts';
import { guidBytes } from './ldap-filter.js';
import { LdapGroupEdges } from './ldap-group-edges.js';
import { entryFacts, LdapMemberships, type PolicyNeeds } from './ldap-policy.js';
import type { LdapReader } from './ldap-reader.js';
import { groupsInScope, type LdapScope } from './ldap-scope.js';
import type { EntryValues } from './ldap-values.js';

export interface LdapOneSettings extends LdapDeltaSettings {
  schema: LdapPreset;
}

type Found = { outcome: 'found'; entry: EntryValues } | Exclude<OneRead, { outcome: 'found' }>;

const GUID_IDS = new Set(['objectguid', 'ms-ds-consistencyguid']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One user or group of an LDAP directory read now (provision on demand): found by its id — the
 * value of the preset's id attribute the bridge keys it by (entryUUID; objectGUID as its GUID
 * string) — or by its DN, under the user (group) base and matching the filter, with a few
 * searches. Its item is made as a full read makes it (ldap-snapshot.ts), its attributes, DN and
 * groups attached for the scope and mapping. A group's members are read as a delta read reads them
 * (ldap-group-edges.ts: member DNs resolved to the users under the base and filter, nested groups
 * followed). When a scope or mapping reads membership, the groups are read first, as a full read
 * does, so that each user's groups (nesting included) are known.
 */
export function readLdapOne(
  settings: LdapOneSettings,
  mapping: LdapMapping,
  needs: PolicyNeeds,
  kind: PolicyKind,
  key: string,
  signal?: AbortSignal,
): Promise<OneRead> {
  const scope: LdapScope = {
    mapping,
    userBase: settings.userBase,
    groupBase: settings.groupBase,
    dnAttribute: settings.schema === 'active-directory' ? 'distinguishedName' : 'entryDN',
  };
  return withLdapReader(settings, signal, async (reader): Promise<OneRead> => {
    const found = await findEntry(reader, scope, kind, key, attributesOf(mapping, needs, kind));
    if (found.outcome !== 'found') return found;
    const memberships = needs.membership ? await readMemberships(reader, scope) : undefined;
    const { entry } = found;
    const identity =
      kind === 'users'
        ? userIdentity(entry, mapping, memberships)
        : await groupIdentity(reader, scope, entry, attributesOf(mapping, needs, 'users'), memberships);
    if (identity) return { outcome: 'found', identity };
    const setting = kind === 'users' ? 'userAttributes' : 'groupAttributes';
    const reason = `no value for its id (directory.ldap.${setting}.id: ${mapping[kind].id.join(', ')})`;
    return { outcome: 'excluded', label: entry.dn, reason };
  });
}

/** The entry by id or DN, in scope of the base and filter; else whether it exists out of it. */
async function findEntry(
  reader: LdapReader,
  scope: LdapScope,
  kind: PolicyKind,
  key: string,
  attributes: readonly string[],
): Promise<Found> {
  const users = kind === 'users';
  const base = users ? scope.userBase : scope.groupBase;
  const filter = users ? scope.mapping.userFilter : scope.mapping.groupFilter;
  const where = `under ${base} (directory.ldap.${users ? 'userBase' : 'groupBase'})`;
  const unmatched = (dn: string): Found => ({
    outcome: 'excluded',
    label: dn,
    reason: `not matched by directory.ldap.${users ? 'userFilter' : 'groupFilter'} ${filter}`,
  });
  if (key.includes('=')) {
    if (!isUnder(dnKey(key), dnKey(base))) return { outcome: 'absent', reason: `${key} is not ${where}` };
    const [entry] = await reader.search(key, filter, attributes, { scope: 'base' });
    if (entry) return { outcome: 'found', entry };
    const other = await reader.entry(key, ['objectClass']);
    return other ? unmatched(other.dn) : { outcome: 'absent', reason: `no entry ${key}` };
  }
  const ids = scope.mapping[kind].id;
  const byId = idFilter(ids, key);
  if (byId === undefined)
    return { outcome: 'absent', reason: `${key} is neither a DN nor a ${ids.join(' or ')}` };
  const both = new AndFilter({ filters: [FilterParser.parseString(filter), byId] });
  const [entry] = await reader.search(base, both, attributes);
  if (entry) return { outcome: 'found', entry };
  const [other] = await reader.search(base, byId, ['objectClass']);
  if (other) return unmatched(other.dn);
  return { outcome: 'absent', reason: `no entry with ${ids.join(' or ')} ${key} ${where}` };
}

/**
 * `(attribute=key)` per id attribute, as a Filter object: a GUID goes as its 16 bytes, which a
 * filter string cannot carry through ldapts (it reads `\xx` escapes as characters, then encodes
 * them as UTF-8). None when the key cannot be a value of any of them.
 */
function idFilter(attributes: readonly string[], key: string): Filter | undefined {
  const terms = attributes.flatMap((attribute): Filter[] => {
    const lower = attribute.toLowerCase();
    if (GUID_IDS.has(lower)) {
      const bytes = guidBytes(key);
      return bytes ? [new EqualityFilter({ attribute, value: bytes })] : [];
    }
    if (lower === 'entryuuid' && !UUID.test(key)) return [];
    return [new EqualityFilter({ attribute, value: key })];
  });
  if (terms.length <= 1) return terms[0];
  return new OrFilter({ filters: terms });
}

function attributesOf(mapping: LdapMapping, needs: PolicyNeeds, kind: PolicyKind): string[] {
  return [...new Set([...Object.values(mapping[kind]).flat(), ...needs[kind]])];
}

function userIdentity(
  entry: EntryValues,
  mapping: LdapMapping,
  memberships: LdapMemberships | undefined,
): SourceIdentity | undefined {
  const id = entry.first(mapping.users.id)?.values[0];
  if (id === undefined) return undefined;
  const item = attachFacts(
    mapUser(entry, mapping.users) ?? { id },
    entryFacts(entry, memberships?.of(entry.dn)),
  );
  return { id, label: entry.dn, item };
}

async function groupIdentity(
  reader: LdapReader,
  scope: LdapScope,
  entry: EntryValues,
  userAttributes: readonly string[],
  memberships: LdapMemberships | undefined,
): Promise<SourceIdentity | undefined> {
  const id = entry.first(scope.mapping.groups.id)?.values[0];
  if (id === undefined) return undefined;
  const graph = new LdapGroupEdges(reader, scope, userAttributes);
  const [flattened] = await graph.flattened([entry]);
  const members = (flattened?.item.members ?? []).flatMap((memberId) => {
    const member = graph.memberEntries.get(memberId);
    const user = member && userIdentity(member, scope.mapping, memberships);
    return user ? [user] : [];
  });
  const item = attachFacts(flattened ? { ...flattened.item } : { id }, entryFacts(entry));
  return { id, label: entry.dn, item, members };
}

/** Every group of the read with its member DNs (ranges read): what each user's groups come from. */
async function readMemberships(reader: LdapReader, scope: LdapScope): Promise<LdapMemberships> {
  const groups: { dn: string; group: NonNullable<ReturnType<typeof mapGroup>> }[] = [];
  for (const entry of await groupsInScope(reader, scope)) {
    const group = mapGroup(entry, scope.mapping.groups);
    if (group === undefined) continue;
    for (const range of group.pendingRanges) group.memberDns.push(...(await reader.rest(entry.dn, range)));
    groups.push({ dn: entry.dn, group });
  }
  return new LdapMemberships(groups);
}
