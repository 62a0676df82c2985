import { seeded } from './google-clock.js';
import { groupId, userId } from './google-seed.js';
import type { GoogleWorkspace } from './google-server.js';

/**
 * A large account for benches and scale tests, seeded (no audit records) in a few seconds: users
 * spread over org units (some suspended, archived, with aliases, an external id and a custom
 * schema), groups nested as a tree several levels deep (every group but the roots is a member of
 * its parent), each with an owner and a manager among its direct members, and the cases a reader
 * must survive: a membership cycle, a CUSTOMER member (everyone), members outside the account,
 * and a subgroup of another customer whose members.list answers 403.
 */

export interface LargeDirectoryOptions {
  users?: number;
  groups?: number;
  /** Subgroups per group: the tree's fan-out (depth ≈ log(groups) / log(fanOut)). */
  fanOut?: number;
  seed?: number;
}

export interface LargeDirectory {
  userIds: string[];
  groupIds: string[];
  /** Direct memberships seeded. */
  memberships: number;
  /** Two groups each a member of the other. */
  cycle: [string, string];
  /** The group with the CUSTOMER member. */
  everyone: string;
  /** The group with members outside the account. */
  withExternal: string;
  /** The other customer's group nested in one of ours. */
  foreign: string;
  depth: number;
}

const UNITS = ['/', '/Engineering', '/Engineering/Platform', '/Sales', '/Sales/EMEA', '/Support'];

export function buildLargeDirectory(
  workspace: GoogleWorkspace,
  options: LargeDirectoryOptions = {},
): LargeDirectory {
  const users = options.users ?? 100_000;
  const groups = options.groups ?? 5_000;
  const fanOut = options.fanOut ?? 8;
  const random = seeded(options.seed ?? 42);
  const domain = workspace.domain;
  const userIds: string[] = [];
  for (let i = 0; i < users; i++) {
    const user = workspace.seed.user({
      id: userId(random),
      primaryEmail: `user${i}@${domain}`,
      givenName: `Given${i}`,
      familyName: `Family${i % 977}`,
      suspended: i % 100 === 7,
      archived: i % 200 === 11,
      orgUnitPath: UNITS[i % UNITS.length] as string,
      aliases: i % 100 === 3 ? [`alias${i}@${domain}`] : [],
      externalIds: i % 10 === 0 ? [{ value: `E${i}`, type: 'organization' }] : [],
      customSchemas: i % 5 === 0 ? { Employment: { costCenter: `CC${i % 50}` } } : {},
    });
    userIds.push(user.id);
  }
  const groupIds: string[] = [];
  let memberships = 0;
  for (let g = 0; g < groups; g++) {
    const group = workspace.seed.group({
      id: groupId(random),
      email: `group${g}@${domain}`,
      name: `Group ${g}`,
    });
    groupIds.push(group.id);
    if (g > 0) {
      workspace.seed.member(groupIds[Math.floor((g - 1) / fanOut)] as string, {
        id: group.id,
        type: 'GROUP',
      });
      memberships++;
    }
  }
  const perGroup = Math.max(1, Math.floor(users / groups));
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < perGroup; k++) {
      const role = k === 0 ? 'OWNER' : k === 1 ? 'MANAGER' : 'MEMBER';
      workspace.seed.member(groupIds[g] as string, {
        id: userIds[(g * perGroup + k) % users] as string,
        role,
      });
      memberships++;
    }
  }
  const last = groups - 1;
  const [a, b] = [groupIds[last] as string, groupIds[last - 1] as string];
  workspace.seed.member(a, { id: b, type: 'GROUP' });
  workspace.seed.member(b, { id: a, type: 'GROUP' });
  const everyone = groupIds[1] as string;
  workspace.seed.member(everyone, { type: 'CUSTOMER' });
  const withExternal = groupIds[2] as string;
  for (const email of ['partner1@partner.example', 'partner2@partner.example'])
    workspace.seed.member(withExternal, { email });
  const foreign = workspace.seed.foreignGroup({
    email: `shared@other-${domain}`,
    name: 'Shared with another customer',
  });
  workspace.seed.member(groupIds[3] as string, { id: foreign.id, type: 'GROUP' });
  memberships += 6;
  const depth = Math.ceil(Math.log(groups * (fanOut - 1) + 1) / Math.log(fanOut));
  return {
    userIds,
    groupIds,
    memberships,
    cycle: [a, b],
    everyone,
    withExternal,
    foreign: foreign.id,
    depth,
  };
}
