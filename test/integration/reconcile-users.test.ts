import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: Redis, BullMQ workers, the reference target over HTTP. Each rule of SPEC §6 for users.
describe('reconciling users', () => {
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

  const ada = {
    id: 'src-ada',
    userName: 'ada@example.com',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ value: 'ada@example.com', primary: true }],
    active: true,
  };

  it('creates a user the target lacks, then sends nothing when it already matches', async () => {
    await engine.bridge.store.api.upsertUser(ada);
    await engine.drain();
    const created = target.findUserByUserName('ada@example.com');
    expect(created).toMatchObject({
      userName: 'ada@example.com',
      externalId: 'src-ada',
      active: true,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
    });
    expect(target.stats().byMethod.POST).toBe(1);

    target.resetStats();
    await engine.bridge.store.producer.enqueue([{ kind: 'user', id: 'src-ada' }]);
    await engine.drain();
    const stats = target.stats();
    expect(stats.byMethod.GET).toBe(1);
    expect((stats.byMethod.POST ?? 0) + (stats.byMethod.PATCH ?? 0) + (stats.byMethod.PUT ?? 0)).toBe(0);
  });

  it('adopts a match by externalId, then by userName, instead of creating', async () => {
    const byExternal = target.insertUser({
      userName: 'old-name@example.com',
      externalId: 'src-ada',
      active: true,
    });
    const byName = target.insertUser({
      userName: 'Grace@Example.com',
      externalId: 'someone-else',
      active: true,
    });
    await engine.bridge.store.api.upsertUser(ada);
    await engine.bridge.store.api.upsertUser({
      id: 'src-grace',
      userName: 'grace@example.com',
      active: true,
    });
    await engine.drain();
    expect(target.stats().byMethod.POST ?? 0).toBe(0);
    expect(target.getUser(byExternal.id)).toMatchObject({
      userName: 'ada@example.com',
      externalId: 'src-ada',
    });
    expect(target.getUser(byName.id)).toMatchObject({
      userName: 'grace@example.com',
      externalId: 'src-grace',
    });
    expect(target.users()).toHaveLength(2);
  });

  it('patches only the attributes that differ, and uses PUT when PATCH is unsupported', async () => {
    await engine.bridge.store.api.upsertUser(ada);
    await engine.drain();
    target.resetStats();
    await engine.bridge.store.api.upsertUser({
      ...ada,
      name: { givenName: 'Augusta Ada', familyName: 'Lovelace' },
    });
    await engine.drain();
    const patch = target.stats().requests.find((r) => r.method === 'PATCH');
    expect(patch).toBeDefined();
    expect(target.stats().byMethod.PUT ?? 0).toBe(0);
    expect(target.findUserByUserName('ada@example.com')?.name).toEqual({
      givenName: 'Augusta Ada',
      familyName: 'Lovelace',
    });

    await engine.close();
    target.faults.setPatchSupported(false);
    engine = await startEngine(target);
    target.resetStats();
    await engine.bridge.store.api.upsertUser({ ...ada, active: false });
    await engine.drain();
    expect(target.stats().byMethod.PATCH ?? 0).toBe(0);
    expect(target.stats().byMethod.PUT).toBe(1);
    expect(target.findUserByUserName('ada@example.com')?.active).toBe(false);
  });

  it('deactivates a deleted managed user and never touches unmanaged ones', async () => {
    const stranger = target.insertUser({
      userName: 'stranger@example.com',
      externalId: 'not-ours',
      active: true,
    });
    await engine.bridge.store.api.upsertUser(ada);
    await engine.drain();
    await engine.bridge.store.api.deleteUser('src-ada');
    await engine.bridge.store.api.deleteUser('not-ours');
    await engine.drain();
    expect(target.findUserByUserName('ada@example.com')?.active).toBe(false);
    expect(target.getUser(stranger.id)).toMatchObject({ active: true, userName: 'stranger@example.com' });
  });

  it('deletes a deleted managed user with DEPROVISION=delete; a 404 on that DELETE is success', async () => {
    await engine.close();
    engine = await startEngine(target, { DEPROVISION: 'delete' });
    await engine.bridge.store.api.upsertUser(ada);
    await engine.bridge.store.api.upsertUser({ id: 'src-bob', userName: 'bob@example.com', active: true });
    await engine.drain();
    const bob = target.findUserByUserName('bob@example.com');
    target.deleteUser(bob!.id);
    await engine.bridge.store.api.deleteUser('src-ada');
    await engine.bridge.store.api.deleteUser('src-bob');
    await engine.drain();
    expect(target.users()).toHaveLength(0);
    const state = await engine.bridge.store.state.userState('src-bob');
    expect(state).toMatchObject({ targetId: undefined, managed: false });
    expect(
      await engine.bridge.store.redis.sismember(engine.bridge.store.keys.managed('user'), 'src-ada'),
    ).toBe(0);
  });

  it('re-creates a user deleted out of band (404 on its known id)', async () => {
    await engine.bridge.store.api.upsertUser(ada);
    await engine.drain();
    const first = target.findUserByUserName('ada@example.com')!;
    target.deleteUser(first.id);
    await engine.bridge.store.api.upsertUser({
      ...ada,
      active: true,
      name: { givenName: 'Ada', familyName: 'King' },
    });
    await engine.drain();
    const second = target.findUserByUserName('ada@example.com')!;
    expect(second.id).not.toBe(first.id);
    expect(second.name).toEqual({ givenName: 'Ada', familyName: 'King' });
    expect((await engine.bridge.store.state.userState('src-ada')).targetId).toBe(second.id);
  });

  it('resolves a 409 on create by look-up and adoption, never a duplicate', async () => {
    const existing = target.insertUser({ userName: 'ADA@example.com', externalId: 'src-ada', active: true });
    // Written as a full sync writes (its own marks, no wake-up: the feeder would otherwise enqueue a
    // run of its own at once, which looks the user up and adopts it without a create).
    await engine.bridge.store.desired.apply([{ op: 'upsertUser', user: ada }], { forSync: true });
    // A full sync that saw no such user would enqueue with an "absent" observation: the create meets 409.
    await engine.bridge.store.producer.enqueue([{ kind: 'user', id: 'src-ada' }], () => ({
      observation: { observedAt: Date.now() + 60_000, resource: null },
    }));
    await engine.drain();
    expect(target.users()).toHaveLength(1);
    expect(
      target
        .stats()
        .requests.filter((r) => r.method === 'POST')
        .map((r) => r.status),
    ).toEqual([409]);
    expect(target.getUser(existing.id)?.userName).toBe('ada@example.com');
    expect((await engine.bridge.store.state.userState('src-ada')).targetId).toBe(existing.id);
  });

  it('records a 400 as a permanent failure with the SCIM detail, without retrying', async () => {
    await engine.bridge.store.api.upsertUser({ id: 'src-bad', userName: '', active: true });
    await engine.drain();
    const record = await engine.bridge.store.redis.hgetall(
      engine.bridge.store.keys.identity('user', 'src-bad'),
    );
    const error = JSON.parse(record.le ?? '{}') as { code: string; status: number; detail: string };
    expect(error, record.le).toMatchObject({ code: 'target_invalid_request', status: 400 });
    expect(error.detail).toMatch(/userName/i);
    expect(
      await engine.bridge.store.redis.zscore(engine.bridge.store.keys.failures(), 'user:src-bad'),
    ).not.toBeNull();
    expect(target.stats().byMethod.POST).toBe(1);
  });
});
