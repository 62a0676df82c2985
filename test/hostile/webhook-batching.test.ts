import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchOptions, BatchResult, DesiredChange } from '../../src/domain/desired-change.js';
import { DesiredStateApi } from '../../src/sources/desired-state.api.js';
import { EventGroupCommit, type EventsAccepted } from '../../src/sources/events/event-group-commit.js';
import { changesForEvents } from '../../src/sources/events/generic-event.changes.js';
import type { GenericEvent } from '../../src/sources/events/generic-event.schema.js';
import {
  fresh,
  LONE_SURROGATE_NAME,
  startHostileBridge,
  userEvent,
  type HostileBridge,
} from './bridge-fixture.js';

// Real: the whole bridge (Redis, the store's Lua batch, HTTP). Concurrent event requests are
// written together; one sender's bad request must fail alone, and every other sender get 202.
describe('concurrent webhook senders', () => {
  let bridge: HostileBridge;
  const store = () => bridge.engine.bridge.store;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('accepts 12 concurrent valid requests, and refuses the bad ones among them alone', async () => {
    const good = Array.from({ length: 12 }, () => userEvent(fresh('e'), fresh('u')));
    const controlId = userEvent(fresh('e'), 'u\u0007bell');
    const surrogate = userEvent(fresh('e'), fresh('u'), { userName: LONE_SURROGATE_NAME });
    const sent = [...good.slice(0, 6), controlId, ...good.slice(6), surrogate];
    const responses = await Promise.all(sent.map((event) => bridge.signed(event)));
    expect(responses.map((r) => r.status)).toEqual([...Array(6).fill(202), 400, ...Array(6).fill(202), 400]);
    expect(responses[6]?.body.error.problems).toEqual([
      'event (id ' + JSON.stringify(controlId.id) + ') data.id: must not hold control characters',
    ]);
    const users = await Promise.all(good.map((e) => store().desired.getUser(e.data.id)));
    expect(users.every((u) => u !== undefined)).toBe(true);
  });

  /**
   * The store's own writer, held back on its first write until the test lets it go, so that the
   * requests submitted meanwhile are certain to be merged into one write (as under load).
   */
  function heldWriter() {
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writes: number[] = [];
    const api = new DesiredStateApi({
      apply: async (changes: readonly DesiredChange[], options?: BatchOptions): Promise<BatchResult> => {
        writes.push(changes.length);
        if (writes.length === 1) await held;
        return store().desired.apply(changes, options);
      },
    });
    return { api, writes, release };
  }

  const batchOf = (...events: GenericEvent[]) => changesForEvents(events);
  const upsert = (eventId: string, userId: string, userName = `${userId}@example.com`): GenericEvent => ({
    id: eventId,
    type: 'user.upserted',
    data: { id: userId, userName, active: true },
  });

  it('isolates a request the store refuses inside a merged write: each request gets its own answer', async () => {
    const { api, writes, release } = heldWriter();
    const commit = new EventGroupCommit(api);
    const first = commit.submit(batchOf(upsert(fresh('e'), fresh('u'))));
    await expect.poll(() => writes.length).toBe(1);
    const ids = Array.from({ length: 11 }, () => fresh('u'));
    const valid = ids.map((id) => commit.submit(batchOf(upsert(fresh('e'), id))));
    // Past the schema (as a request validated by an older rule would be): only the store refuses it.
    const refused = commit.submit(batchOf(upsert(fresh('e'), fresh('u'), LONE_SURROGATE_NAME)));
    const more = commit.submit(batchOf(upsert(fresh('e'), 'u-after-the-bad-one')));
    release();
    const settled = await Promise.allSettled([first, ...valid, refused, more]);
    const outcome = (s: PromiseSettledResult<EventsAccepted>) =>
      s.status === 'fulfilled' ? s.value : (s.reason as { code: string }).code;
    expect(settled.map(outcome)).toEqual([
      ...Array(12).fill({ accepted: 1, duplicates: 0 }),
      'invalid_input',
      { accepted: 1, duplicates: 0 },
    ]);
    // One held write, one merged write of the 13 others that the store refused, then one each.
    expect(writes).toEqual([1, 13, ...Array(13).fill(1)]);
    const stored = await Promise.all(
      [...ids, 'u-after-the-bad-one'].map((id) => store().desired.getUser(id)),
    );
    expect(stored.every((u) => u !== undefined)).toBe(true);
  });

  it('still applies an event once when its redelivery shares a merged write that fails', async () => {
    const { api, release } = heldWriter();
    const commit = new EventGroupCommit(api);
    const event = upsert(fresh('e'), fresh('u'));
    const first = commit.submit(batchOf(upsert(fresh('e'), fresh('u'))));
    const twice = [commit.submit(batchOf(event)), commit.submit(batchOf(event))];
    const refused = commit.submit(batchOf(upsert(fresh('e'), fresh('u'), LONE_SURROGATE_NAME)));
    release();
    await first;
    await expect(refused).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await Promise.all(twice)).toEqual([
      { accepted: 1, duplicates: 0 },
      { accepted: 0, duplicates: 1 },
    ]);
  });
});
