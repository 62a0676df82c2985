import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import type { ReferenceTarget } from 'scim-reference-target';

/**
 * The benchmarks' directory: `users` people and 5% as many groups of 20 members, generated (never
 * held whole), written to a snapshot file as it is generated, and seeded into the reference target.
 */

export const person = (i: number) => ({
  id: `emp-${i}`,
  userName: `person${i}@bench.example`,
  name: { givenName: `Given${i}`, familyName: `Family${i}` },
  emails: [{ value: `person${i}@bench.example`, primary: true }],
  active: true,
});

export const team = (g: number, users: number) => ({
  id: `team-${g}`,
  displayName: `Team ${g}`,
  members: Array.from({ length: 20 }, (_, k) => `emp-${(g * 20 + k) % users}`),
});

export const groupsFor = (users: number) => Math.round(users / 20);

/** Writes the snapshot file (JSON) a batch at a time. */
export async function writeDirectory(path: string, users: number, groups = groupsFor(users)): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{"users":[');
  for (let i = 0; i < users; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, users - i) }, (_, k) => JSON.stringify(person(i + k)));
    await write((i === 0 ? '' : ',') + batch.join(','));
  }
  await write('],"groups":[');
  for (let g = 0; g < groups; g += 1000) {
    const batch = Array.from({ length: Math.min(1000, groups - g) }, (_, k) =>
      JSON.stringify(team(g + k, users)),
    );
    await write((g === 0 ? '' : ',') + batch.join(','));
  }
  await write(']}');
  out.end();
  await once(out, 'finish');
}

/** Puts the directory on the target as a bridge would have provisioned it (externalId = source id). */
export function seedTarget(target: ReferenceTarget, users: number, groups = groupsFor(users)): void {
  const ids: string[] = [];
  for (let i = 0; i < users; i++) {
    const { id, ...rest } = person(i);
    ids.push(target.insertUser({ ...rest, externalId: id }).id);
  }
  for (let g = 0; g < groups; g++) {
    const { id, displayName, members } = team(g, users);
    const values = members.map((m) => ({ value: ids[Number(m.slice(4))] ?? '' }));
    target.insertGroup({ displayName, externalId: id, members: values });
  }
}

/**
 * Changes 1% of users (a given name) and 1% of groups (one member fewer) behind the bridge's back;
 * returns how many writes a sync needs to undo it.
 */
export function driftTarget(target: ReferenceTarget): number {
  let drifted = 0;
  const users = target.users();
  for (let i = 0; i < users.length; i += 100) {
    const user = users[i];
    if (!user) continue;
    target.updateUser(user.id, { name: { givenName: 'Drifted', familyName: user.name?.familyName ?? '' } });
    drifted++;
  }
  const groups = target.groups();
  for (let i = 0; i < groups.length; i += 100) {
    const group = groups[i];
    if (!group) continue;
    target.updateGroup(group.id, { members: group.members.slice(1).map(({ value }) => ({ value })) });
    drifted++;
  }
  return drifted;
}

/** Redis's used memory, and its peak while `during` runs (sampled every 100 ms). */
export class RedisMemory {
  private readonly client: Redis;

  constructor(url: string) {
    this.client = new Redis(url);
  }

  async used(): Promise<number> {
    const info = await this.client.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
  }

  /**
   * Used memory once Redis has freed what was deleted in the background: a sync ends by UNLINKing
   * its staging and listing, which a lazy-free thread releases after the sync has answered.
   */
  async settled(): Promise<number> {
    for (;;) {
      const info = await this.client.info('memory');
      if (Number(/lazyfree_pending_objects:(\d+)/.exec(info)?.[1] ?? 0) === 0) return this.used();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async peakDuring<T>(during: () => Promise<T>): Promise<{ result: T; peak: number }> {
    let peak = await this.used();
    let running = true;
    const sampler = (async () => {
      while (running) {
        peak = Math.max(peak, await this.used());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const result = await during();
      running = false;
      await sampler;
      return { result, peak: Math.max(peak, await this.used()) };
    } finally {
      running = false;
    }
  }

  close(): void {
    this.client.disconnect();
  }
}
