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
  const perGroup = Math.min(options.membersPerGroup ?? 20, users);
  const big = Math.min(options.bigGroupMembers ?? 2_500, users);
  if (users < 1 || groups < depth + 1 || depth < 2)
    throw new Error('a scale fixture needs users, and more groups than its depth');
  const directory = tenant.directory;
  const guestIds: string[] = [];
  const userIds = Array.from({ length: users }, (_, i) => fixtureGuid(USER, i));
  const groupIds = Array.from({ length: groups }, (_, g) => fixtureGuid(GROUP, g));
  let withoutMail = 0;
  for (let i = 0; i < users; i++) {
    const guest = i % 100 === 99;
    const props: Record<string, unknown> = {
      accountEnabled: i % 97 !== 0,
      displayName: `Person ${i}`,
      givenName: `Given${i}`,
      surname: `Family${i}`,
      userPrincipalName: guest
        ? `guest${i}_partner.example#EXT#@${tenant.domain}`
        : `person${i}@${tenant.domain}`,
      userType: guest ? 'Guest' : 'Member',
      employeeId: `E${String(i).padStart(6, '0')}`,
      department: `Department ${i % 40}`,
      mail: guest ? `guest${i}@partner.example` : `person${i}@${tenant.domain}`,
      createdDateTime: '2024-01-01T00:00:00Z',
    };
    if (guest) delete props.employeeId;
    if (!guest && i % 50 === 7) {
      delete props.mail;
      withoutMail++;
    }
    directory.insert('user', props, userIds[i], true);
    if (guest && guestIds.length < 20) guestIds.push(userIds[i] as string);
  }
  for (let g = 0; g < groups; g++) directory.insert('group', groupProps(g), groupIds[g], true);
  let edges = 0;
  const link = (groupId: string, memberId: string) => {
    if (directory.members.get(groupId)?.has(memberId)) return;
    directory.link(groupId, memberId);
    edges++;
  };
  for (let g = 0; g < groups; g++) {
    const groupId = groupIds[g] as string;
    if (g % depth !== 0) link(groupIds[g - 1] as string, groupId);
    for (let k = 0; k < perGroup; k++) link(groupId, userIds[(g * perGroup + k) % users] as string);
  }
  const cycle: [string, string] = [groupIds[depth - 1] as string, groupIds[0] as string];
  link(...cycle);
  const bigGroupId = groupIds[depth] as string;
  for (let i = 0; i < big; i++) link(bigGroupId, userIds[users - 1 - i] as string);
  const otherMembers = {
    device: directory.insert(
      'device',
      { displayName: 'Kiosk 1', accountEnabled: true, operatingSystem: 'Windows' },
      fixtureGuid(OTHER, 1),
    ).id,
    orgContact: directory.insert(
      'orgContact',
      { displayName: 'Supplier contact', mail: 'contact@supplier.example' },
      fixtureGuid(OTHER, 2),
    ).id,
    servicePrincipal: directory.insert(
      'servicePrincipal',
      { displayName: 'Robot', appId: fixtureGuid(OTHER, 4), accountEnabled: true },
      fixtureGuid(OTHER, 3),
    ).id,
  };
  for (const member of Object.values(otherMembers)) link(fixtureGuid(GROUP, 0), member);
  const roots = Array.from({ length: Math.ceil(groups / depth) }, (_, k) => fixtureGuid(GROUP, k * depth));
  return {
    users,
    groups,
    edges,
    userId: (i) => fixtureGuid(USER, i),
    groupId: (g) => fixtureGuid(GROUP, g),
    roots,
    cycle,
    bigGroupId,
    guestIds,
    usersWithoutMail: withoutMail,
    otherMembers,
  };
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
