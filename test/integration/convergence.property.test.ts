import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredGroup, DesiredUser } from '../../src/domain/identity.js';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { pick, seededRandom, testSeed } from '../support/random.js';

/**
 * Convergence property (SPEC §6): random desired-state changes interleaved with out-of-band edits
 * at the target and random faults; after the queues drain and one reconcile pass over every
 * identity, the target equals the desired state, unmanaged users are untouched, nothing is
 * duplicated, and a second pass sends no write. Replay a failure with TEST_SEED=<seed>.
 * Real: Redis, BullMQ workers, the reference target over HTTP.
 */
const OPERATIONS = Number(process.env.PROPERTY_OPERATIONS ?? 300);
const USERS = 24;
const GROUPS = 6;

interface World {
  users: Map<string, DesiredUser>;
  groups: Map<string, DesiredGroup>;
  version: number;
}

describe('convergence under random changes, edits and faults', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  it(`converges after ${OPERATIONS} random operations`, async () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    target = await startTarget({ seed, latencyMs: 1 });
    engine = await startEngine(target, {
      RECONCILE_BACKOFF_MS: '20',
      RECONCILE_ATTEMPTS: '20',
      WORKER_CONCURRENCY: '8',
    });
    const world: World = { users: new Map(), groups: new Map(), version: 0 };
    const unmanaged = [1, 2, 3].map((n) =>
      target.insertUser({
        userName: `outsider${n}@elsewhere.test`,
        externalId: `outsider-${n}`,
        active: true,
      }),
    );

    for (let step = 0; step < OPERATIONS; step++) {
      if (step % 25 === 0) await switchFaults(target, random);
      await randomChange(engine, world, random);
      if (random() < 0.1) outOfBandEdit(target, random);
      if (random() < 0.2) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 20)));
    }

    await target.faults.reset();
    await engine.drain(120_000);
    await reconcileEverything(engine);
    await engine.drain(120_000);

    const context = `seed ${seed}`;
    await expectStoreEqualsWorld(engine, world, context);
    expectTargetEqualsWorld(target, world, context);
    for (const outsider of unmanaged) expect(target.getUser(outsider.id), context).toEqual(outsider);
    expect(await engine.bridge.store.redis.zcard(engine.bridge.store.keys.failures()), context).toBe(0);

    target.resetStats();
    await reconcileEverything(engine);
    await engine.drain(60_000);
    const writes = target.stats().requests.filter((r) => r.method !== 'GET');
    expect(writes, context).toEqual([]);
  }, 300_000);
});

async function randomChange(engine: EngineFixture, world: World, random: () => number): Promise<void> {
  const api = engine.bridge.store.api;
  const roll = random();
  const userId = `u${Math.floor(random() * USERS)}`;
  const groupId = `g${Math.floor(random() * GROUPS)}`;
  world.version++;
  if (roll < 0.35) {
    const user: DesiredUser = {
      id: userId,
      userName: `${userId}.v${world.version}@example.com`,
      name: { givenName: pick(random, ['Ada', 'Grace', 'Alan']), familyName: `F${world.version}` },
      emails: [{ value: `${userId}@example.com`, primary: true }],
      active: random() < 0.85,
    };
    await api.upsertUser(user);
    world.users.set(userId, user);
  } else if (roll < 0.45) {
    await api.deleteUser(userId);
    world.users.delete(userId);
    for (const group of world.groups.values()) group.members = group.members.filter((m) => m !== userId);
  } else if (roll < 0.6) {
    const members = [...world.users.keys()].filter(() => random() < 0.3);
    const group: DesiredGroup = { id: groupId, displayName: `${groupId} v${world.version}`, members };
    await api.upsertGroup(group);
    world.groups.set(groupId, group);
  } else if (roll < 0.65) {
    await api.deleteGroup(groupId);
    world.groups.delete(groupId);
  } else {
    await changeMembers(engine, world, groupId, userId, random() < 0.6 ? 'add' : 'remove');
  }
}

async function changeMembers(
  engine: EngineFixture,
  world: World,
  groupId: string,
  userId: string,
  op: 'add' | 'remove',
) {
  const group = world.groups.get(groupId);
  if (!group || !world.users.has(userId)) return;
  if (op === 'add') {
    await engine.bridge.store.api.addMembers(groupId, [userId]);
    if (!group.members.includes(userId)) group.members.push(userId);
  } else {
    await engine.bridge.store.api.removeMembers(groupId, [userId]);
    group.members = group.members.filter((m) => m !== userId);
  }
}

function outOfBandEdit(target: ReferenceTarget, random: () => number): void {
  const managedUsers = target.users().filter((u) => !u.externalId?.startsWith('outsider-'));
  const groups = target.groups();
  const roll = random();
  if (roll < 0.4 && managedUsers.length > 0) {
    const victim = pick(random, managedUsers);
    target.updateUser(victim.id, {
      active: !victim.active,
      name: { givenName: 'Edited', familyName: 'OutOfBand' },
    });
  } else if (roll < 0.7 && managedUsers.length > 0) {
    target.deleteUser(pick(random, managedUsers).id);
  } else if (groups.length > 0) {
    target.deleteGroup(pick(random, groups).id);
  }
}

async function switchFaults(target: ReferenceTarget, random: () => number): Promise<void> {
  await target.faults.reset();
  const roll = random();
  if (roll < 0.2)
    target.faults.setErrorRate({
      fraction: 0.05 + random() * 0.05,
      status: pick(random, [500, 502, 503] as const),
    });
  else if (roll < 0.35) target.faults.setRateLimit({ rps: 40, retryAfterSeconds: 1 });
  else if (roll < 0.5) target.faults.setLostResponseFraction(0.2);
  else if (roll < 0.6)
    await target.faults.setOutage({ mode: pick(random, ['refuse', '503'] as const), forMs: 300 });
  else if (roll < 0.75) target.faults.setLatency({ ms: 2, jitterMs: 10 });
}

/** What a full reconciliation does for every identity: one reconcile run each. */
async function reconcileEverything(engine: EngineFixture): Promise<void> {
  const keys = [
    ...Array.from({ length: USERS }, (_, i) => ({ kind: 'user' as const, id: `u${i}` })),
    ...Array.from({ length: GROUPS }, (_, i) => ({ kind: 'group' as const, id: `g${i}` })),
  ];
  await engine.bridge.store.producer.enqueue(keys);
}

async function expectStoreEqualsWorld(engine: EngineFixture, world: World, context: string): Promise<void> {
  for (let i = 0; i < USERS; i++) {
    const stored = await engine.bridge.store.desired.getUser(`u${i}`);
    expect(stored, context).toEqual(world.users.get(`u${i}`));
  }
  for (let i = 0; i < GROUPS; i++) {
    const stored = await engine.bridge.store.desired.getGroup(`g${i}`);
    const expected = world.groups.get(`g${i}`);
    expect(stored, context).toEqual(
      expected ? { ...expected, members: [...expected.members].sort() } : undefined,
    );
  }
}

function expectTargetEqualsWorld(target: ReferenceTarget, world: World, context: string): void {
  const managed = target.users().filter((u) => !u.externalId?.startsWith('outsider-'));
  const byExternalId = new Map<string, typeof managed>();
  for (const u of managed)
    byExternalId.set(u.externalId ?? '', [...(byExternalId.get(u.externalId ?? '') ?? []), u]);
  for (const [externalId, copies] of byExternalId)
    expect(copies.length, `${context}: duplicates of ${externalId}`).toBe(1);
  for (const user of world.users.values()) {
    const onTarget = byExternalId.get(user.id)?.[0];
    expect(onTarget, `${context}: ${user.id}`).toMatchObject({
      userName: user.userName,
      name: user.name,
      active: user.active,
      emails: [expect.objectContaining({ value: user.emails?.[0]?.value, primary: true })],
    });
  }
  for (const u of managed) {
    if (!world.users.has(u.externalId ?? ''))
      expect(u.active, `${context}: ${u.externalId} deprovisioned`).toBe(false);
  }
  const targetIdOf = new Map(managed.map((u) => [u.externalId, u.id]));
  expect(target.groups().length, context).toBe(world.groups.size);
  for (const group of world.groups.values()) {
    const onTarget = target.groups().find((g) => g.externalId === group.id);
    expect(onTarget?.displayName, `${context}: ${group.id}`).toBe(group.displayName);
    const members = (onTarget?.members ?? []).map((m) => m.value).sort();
    expect(members, `${context}: members of ${group.id}`).toEqual(
      group.members.map((m) => targetIdOf.get(m)).sort(),
    );
  }
}
