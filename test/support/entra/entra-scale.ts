import { fixtureGuid } from './entra-ids.js';
import type { EntraTenant } from './entra-tenant.js';

/**
 * A tenant at scale, seeded as state that was always there (no delta log entries): by default
 * 100,000 users and 20,000 groups in chains nested `depth` deep (each group a member of the one
 * above it), a cycle (the first chain's deepest group contains its root), one group with more
 * direct members than a page holds, every 100th user a guest with an `#EXT#` userPrincipalName,
 * every 50th without mail, every 97th disabled, and a device, an organizational contact and a
 * service principal among the first root's members. Ids are deterministic (entra-ids.ts
 * `fixtureGuid`), so runs are comparable.
 */
export interface ScaleOptions {
  users?: number;
  groups?: number;
  depth?: number;
  membersPerGroup?: number;
  bigGroupMembers?: number;
}

export interface ScaleFixture {
  users: number;
  groups: number;
  /** Direct membership edges seeded. */
  edges: number;
  userId(i: number): string;
  groupId(g: number): string;
  /** Level-0 group of each chain. */
  roots: string[];
  /** [deepest group of chain 0, its root]: the edge that closes the cycle. */
  cycle: [string, string];
  bigGroupId: string;
  guestIds: string[];
  usersWithoutMail: number;
  otherMembers: { device: string; orgContact: string; servicePrincipal: string };
}

const USER = 1;
const GROUP = 2;
const OTHER = 3;

export function seedScaleDirectory(tenant: EntraTenant, options: ScaleOptions = {}): ScaleFixture {
  const users = options.users ?? 100_000;
  const groups = options.groups ?? 20_000;
  const depth = options.depth ?? 10;
  if (users < 1 || groups < depth + 1 || depth < 2) {
    throw new Error('a scale fixture needs users, and more groups than its depth');
  }
  const userIds = Array.from({ length: users }, (_, i) => fixtureGuid(USER, i));
  const groupIds = Array.from({ length: groups }, (_, g) => fixtureGuid(GROUP, g));
  const seeded = seedUsers(tenant, userIds);
  groupIds.forEach((id, g) => tenant.directory.insert('group', groupProps(g), id, true));
  const otherMembers = seedOthers(tenant);
  const link = linker(tenant);
  const perGroup = Math.min(options.membersPerGroup ?? 20, users);
  groupIds.forEach((groupId, g) => {
    if (g % depth !== 0) link(groupIds[g - 1] as string, groupId);
    for (let k = 0; k < perGroup; k++) link(groupId, userIds[(g * perGroup + k) % users] as string);
  });
  const cycle: [string, string] = [groupIds[depth - 1] as string, groupIds[0] as string];
  link(...cycle);
  const bigGroupId = groupIds[depth] as string;
  const big = Math.min(options.bigGroupMembers ?? 2_500, users);
  for (let i = 0; i < big; i++) link(bigGroupId, userIds[users - 1 - i] as string);
  for (const member of Object.values(otherMembers)) link(groupIds[0] as string, member);
  return {
    users,
    groups,
    edges: link.count(),
    userId: (i) => fixtureGuid(USER, i),
    groupId: (g) => fixtureGuid(GROUP, g),
    roots: groupIds.filter((_, g) => g % depth === 0),
    cycle,
    bigGroupId,
    ...seeded,
    otherMembers,
  };
}

function seedUsers(tenant: EntraTenant, userIds: string[]) {
  const guestIds: string[] = [];
  let usersWithoutMail = 0;
  userIds.forEach((id, i) => {
    const guest = i % 100 === 99;
    const props = userProps(i, guest, tenant.domain);
    if (!guest && i % 50 === 7) {
      delete props.mail;
      usersWithoutMail++;
    }
    tenant.directory.insert('user', props, id, true);
    if (guest && guestIds.length < 20) guestIds.push(id);
  });
  return { guestIds, usersWithoutMail };
}

function userProps(i: number, guest: boolean, domain: string): Record<string, unknown> {
  const props: Record<string, unknown> = {
    accountEnabled: i % 97 !== 0,
    displayName: `Person ${i}`,
    givenName: `Given${i}`,
    surname: `Family${i}`,
    userPrincipalName: guest ? `guest${i}_partner.example#EXT#@${domain}` : `person${i}@${domain}`,
    userType: guest ? 'Guest' : 'Member',
    department: `Department ${i % 40}`,
    mail: guest ? `guest${i}@partner.example` : `person${i}@${domain}`,
    createdDateTime: '2024-01-01T00:00:00Z',
  };
  if (!guest) props.employeeId = `E${String(i).padStart(6, '0')}`;
  return props;
}

function seedOthers(tenant: EntraTenant): ScaleFixture['otherMembers'] {
  const insert = (
    kind: 'device' | 'orgContact' | 'servicePrincipal',
    props: Record<string, unknown>,
    n: number,
  ) => tenant.directory.insert(kind, props, fixtureGuid(OTHER, n), true).id;
  return {
    device: insert('device', { displayName: 'Kiosk 1', accountEnabled: true, operatingSystem: 'Windows' }, 1),
    orgContact: insert(
      'orgContact',
      { displayName: 'Supplier contact', mail: 'contact@supplier.example' },
      2,
    ),
    servicePrincipal: insert('servicePrincipal', { displayName: 'Robot', appId: fixtureGuid(OTHER, 4) }, 3),
  };
}

/** Seeds an edge unless it is there already, counting them. */
function linker(tenant: EntraTenant) {
  let edges = 0;
  const link = (groupId: string, memberId: string) => {
    if (tenant.directory.members.get(groupId)?.has(memberId)) return;
    tenant.directory.link(groupId, memberId);
    edges++;
  };
  return Object.assign(link, { count: () => edges });
}

function groupProps(g: number): Record<string, unknown> {
  return {
    displayName: `Team ${g}`,
    description: `Fixture group ${g}`,
    mailEnabled: false,
    mailNickname: `team${g}`,
    securityEnabled: true,
    groupTypes: [],
    createdDateTime: '2024-01-01T00:00:00Z',
  };
}
