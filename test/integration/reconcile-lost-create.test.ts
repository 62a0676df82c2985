import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { IdentityKind } from '../../src/domain/identity.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: Redis, BullMQ workers, the reference target over HTTP. The target applies the create and
// answers 502 (its lost-response fault); the identity is then deleted at the source before the
// retry runs. The platform resource must still be deprovisioned (SPEC §6), never left behind.
describe('a create whose answer was lost, then deleted at the source', { timeout: 60_000 }, () => {
  let target: ReferenceTarget | undefined;
  let engine: EngineFixture | undefined;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
    engine = undefined;
    target = undefined;
  });

  const ada = { id: 'src-ada', userName: 'ada@example.com', active: true };
  const engineering = { id: 'src-eng', displayName: 'Engineering', members: [] };
  const source = {
    user: {
      id: ada.id,
      add: (e: EngineFixture) => e.bridge.store.api.upsertUser(ada),
      remove: (e: EngineFixture) => e.bridge.store.api.deleteUser(ada.id),
    },
    group: {
      id: engineering.id,
      add: (e: EngineFixture) => e.bridge.store.api.upsertGroup(engineering),
      remove: (e: EngineFixture) => e.bridge.store.api.deleteGroup(engineering.id),
    },
  };

  /**
   * Loses the answer to the identity's POST (applied, answered 502). The back-off of 5–15 minutes
   * holds the failed job's retry (delayed) until the test promotes it, once the identity has been
   * deleted at the source: the deletion surely comes first, with no timing involved.
   */
  async function loseCreateThenDelete(kind: IdentityKind, env: Record<string, string> = {}) {
    const t = (target = await startTarget());
    const e = (engine = await startEngine(t, { RECONCILE_BACKOFF_MS: '600000', ...env }));
    const queue = e.bridge.store.producer.queue;
    t.faults.setLostResponseFraction(1);
    await source[kind].add(e);
    await expect
      .poll(async () => (await queue.getDelayed()).map((job) => job.data.id), { timeout: 15_000 })
      .toEqual([source[kind].id]);
    t.faults.setLostResponseFraction(0);
    expect(posts(t)).toEqual([502]);

    await source[kind].remove(e);
    for (const job of await queue.getDelayed()) await job.promote();
    await e.drain();
    expect(posts(t)).toEqual([502]);
    expect(await e.bridge.store.redis.zcard(e.bridge.store.keys.failures())).toBe(0);
    return { t, e };
  }

  const posts = (t: ReferenceTarget) =>
    t
      .stats()
      .requests.filter((r) => r.method === 'POST')
      .map((r) => r.status);

  it('deactivates a user whose create was lost (DEPROVISION=deactivate)', async () => {
    const { t, e } = await loseCreateThenDelete('user');
    const users = t.users();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ userName: 'ada@example.com', externalId: 'src-ada', active: false });
    expect(await e.bridge.store.state.userState(ada.id)).toMatchObject({
      targetId: users[0]?.id,
      managed: true,
      pendingCreate: undefined,
    });
  });

  it('deletes a user whose create was lost (DEPROVISION=delete)', async () => {
    const { t, e } = await loseCreateThenDelete('user', { DEPROVISION: 'delete' });
    expect(t.users()).toEqual([]);
    expect(await e.bridge.store.state.userState(ada.id)).toMatchObject({
      targetId: undefined,
      managed: false,
      pendingCreate: undefined,
    });
  });

  it('deletes a group whose create was lost', async () => {
    const { t, e } = await loseCreateThenDelete('group');
    expect(t.groups()).toEqual([]);
    expect(await e.bridge.store.state.groupState(engineering.id)).toMatchObject({
      targetId: undefined,
      managed: false,
      pendingCreate: undefined,
    });
  });
});
