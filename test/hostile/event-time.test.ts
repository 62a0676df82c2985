import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TIME_SKEW_MS } from '../../src/domain/event-time.js';
import { fresh, startHostileBridge, type HostileBridge } from './bridge-fixture.js';

// Real: the whole bridge — the Okta hook, its queue and worker, the store, the reconcile workers —
// against the reference target over HTTP. Only the event times are hostile.
describe('event times are bounded', () => {
  let bridge: HostileBridge;
  const store = () => bridge.engine.bridge.store;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  const oktaEvent = (eventType: string, published: string, userId: string, login: string) => ({
    uuid: fresh('okta'),
    published,
    eventType,
    outcome: { result: 'SUCCESS' },
    target: [{ id: userId, type: 'User', alternateId: login, displayName: 'Future Pinned' }],
  });
  const deliver = async (...events: unknown[]) => {
    expect((await bridge.okta({ data: { events } })).status).toBe(200);
    await bridge.engine.drain();
  };

  it('lets a real deactivation and deletion through after an Okta event dated 9999', async () => {
    const id = `00u${fresh('f')}`;
    const login = `${id}@example.com`;
    const now = () => new Date().toISOString();
    await deliver(oktaEvent('user.lifecycle.create', now(), id, login));
    await deliver(oktaEvent('user.lifecycle.activate', '9999-01-01T00:00:00.000Z', id, login));
    expect(bridge.target.findUserByUserName(login)).toMatchObject({ active: true });

    await deliver(oktaEvent('user.lifecycle.deactivate', now(), id, login));
    expect(await store().desired.getUser(id)).toMatchObject({ active: false });
    expect(bridge.target.findUserByUserName(login)).toMatchObject({ active: false });

    await deliver(oktaEvent('user.lifecycle.delete.initiated', now(), id, login));
    expect(await store().desired.getUser(id)).toBeUndefined();
  });

  it('no longer lets a far-future time stored before the bound pin an identity', async () => {
    const id = fresh('u');
    const user = { id, userName: `${id}@example.com`, active: true };
    await store().api.upsertUser(user, { eventTime: Date.now(), mode: 'force' });
    // What a bridge without the bound kept for an event dated 9999.
    await store().redis.hset(store().keys.identity('user', id), 'ev', String(Date.parse('9999-01-01')));
    const later = await store().api.upsertUser(
      { ...user, active: false },
      { eventTime: Date.now(), mode: 'force' },
    );
    expect(later.status).toBe('updated');
    expect(await store().desired.getUser(id)).toMatchObject({ active: false });
  });

  it('keeps ordering events within the skew: an older event after a newer one changes nothing', async () => {
    const id = fresh('u');
    const user = { id, userName: `${id}@example.com`, active: true };
    const soon = Date.now() + EVENT_TIME_SKEW_MS / 2;
    await store().api.upsertUser({ ...user, active: false }, { eventTime: soon, mode: 'force' });
    const older = await store().api.upsertUser(user, { eventTime: Date.now(), mode: 'force' });
    expect(older.status).toBe('stale');
    expect(await store().desired.getUser(id)).toMatchObject({ active: false });
  });
});
