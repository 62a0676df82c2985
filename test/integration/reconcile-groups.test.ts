import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: Redis, BullMQ workers, the reference target over HTTP. SPEC §6 for groups and memberships.
describe('reconciling groups', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;

  beforeEach(async () => {
    target = await startTarget();
    engine = await startEngine(target);
  });
  afterEach(async () => {
    await engine.close();
    await target.close();
  });

  const user = (n: number) => ({ id: `u${n}`, userName: `user${n}@example.com`, active: true });
  const memberNames = (displayName: string) =>
    (target.findGroupByDisplayName(displayName)?.members ?? [])
      .map((m) => target.getUser(m.value)?.userName)
      .sort();

  it('provisions members first, then creates the group with them', async () => {
    const api = engine.bridge.store.api;
    await api.upsertGroup({ id: 'g1', displayName: 'Engineering', members: ['u1', 'u2'] });
    await api.upsertUser(user(1));
    await api.upsertUser(user(2));
    await engine.drain();
    expect(memberNames('Engineering')).toEqual(['user1@example.com', 'user2@example.com']);
    expect(target.findGroupByDisplayName('Engineering')?.externalId).toBe('g1');
  });

  it('changes membership with PATCH add and remove at members[value eq "…"]', async () => {
    const api = engine.bridge.store.api;
    for (const n of [1, 2, 3]) await api.upsertUser(user(n));
    await api.upsertGroup({ id: 'g1', displayName: 'Engineering', members: ['u1', 'u2'] });
    await engine.drain();
    target.resetStats();
    await api.addMembers('g1', ['u3']);
    await api.removeMembers('g1', ['u1']);
    await engine.drain();
    expect(memberNames('Engineering')).toEqual(['user2@example.com', 'user3@example.com']);
    const writes = target.stats().requests.filter((r) => r.method !== 'GET');
    expect(writes.every((r) => r.method === 'PATCH')).toBe(true);
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(writes.length).toBeLessThanOrEqual(2);
  });

  it('removes a deleted user from its groups and deletes a deleted group', async () => {
    const api = engine.bridge.store.api;
    for (const n of [1, 2]) await api.upsertUser(user(n));
    await api.upsertGroup({ id: 'g1', displayName: 'Engineering', members: ['u1', 'u2'] });
    await api.upsertGroup({ id: 'g2', displayName: 'Sales', members: ['u1'] });
    await engine.drain();
    await api.deleteUser('u1');
    await api.deleteGroup('g2');
    await engine.drain();
    expect(memberNames('Engineering')).toEqual(['user2@example.com']);
    expect(target.findGroupByDisplayName('Sales')).toBeUndefined();
  });

  it('adopts a group matched by displayName and renames by PATCH', async () => {
    const existing = target.insertGroup({ displayName: 'engineering', externalId: 'legacy' });
    await engine.bridge.store.api.upsertGroup({ id: 'g1', displayName: 'Engineering', members: [] });
    await engine.drain();
    expect(target.groups()).toHaveLength(1);
    expect(target.getGroup(existing.id)).toMatchObject({ displayName: 'Engineering', externalId: 'g1' });
    await engine.bridge.store.api.upsertGroup({ id: 'g1', displayName: 'Platform Engineering' });
    await engine.drain();
    expect(target.getGroup(existing.id)?.displayName).toBe('Platform Engineering');
  });

  it('uses PUT for groups when the platform does not support PATCH', async () => {
    await engine.close();
    target.faults.setPatchSupported(false);
    engine = await startEngine(target);
    const api = engine.bridge.store.api;
    for (const n of [1, 2]) await api.upsertUser(user(n));
    await api.upsertGroup({ id: 'g1', displayName: 'Engineering', members: ['u1'] });
    await engine.drain();
    await api.addMembers('g1', ['u2']);
    await engine.drain();
    expect(memberNames('Engineering')).toEqual(['user1@example.com', 'user2@example.com']);
    expect(target.stats().byMethod.PATCH ?? 0).toBe(0);
  });
});
