import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OKTA_EVENTS_PER_DELIVERY } from '../../src/sources/okta/okta.webhook.js';
import { fresh, startHostileBridge, type HostileBridge } from './bridge-fixture.js';

// Real: the whole bridge (Redis, the okta-events queue, HTTP) and its pino logs as JSON lines.
describe('Okta deliveries', () => {
  let bridge: HostileBridge;
  const queued = () =>
    bridge.engine.bridge.store.oktaEvents.queue.getJobCounts('wait', 'active', 'completed');
  const linesAbout = (reqId: string) => bridge.logs.lines().filter((line) => line.reqId === reqId);

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  const activation = (uuid: string) => ({
    uuid,
    published: new Date().toISOString(),
    eventType: 'user.lifecycle.activate',
    target: [{ id: '00ucap', type: 'User', alternateId: 'cap@example.com', displayName: 'Cap Test' }],
  });

  it(`refuses a delivery of more than ${MAX_OKTA_EVENTS_PER_DELIVERY} events with 400 and enqueues none`, async () => {
    const events = Array.from({ length: MAX_OKTA_EVENTS_PER_DELIVERY + 1 }, () => activation(fresh('cap')));
    const reqId = fresh('req');
    const res = await bridge.okta({ data: { events } }).set('X-Request-Id', reqId);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'invalid_input',
      message: `A delivery holds at most ${MAX_OKTA_EVENTS_PER_DELIVERY} events; this one holds ${MAX_OKTA_EVENTS_PER_DELIVERY + 1}`,
    });
    expect(await queued()).toEqual({ wait: 0, active: 0, completed: 0 });
    expect(linesAbout(reqId)).toHaveLength(1);
  });

  it('writes one summary line for the ignored events of a delivery, however many there are', async () => {
    const empty = Array.from({ length: MAX_OKTA_EVENTS_PER_DELIVERY - 1 }, () => ({}));
    const reqId = fresh('req');
    const res = await bridge
      .okta({ data: { events: [...empty, activation(fresh('ok'))] } })
      .set('X-Request-Id', reqId);
    expect(res.status).toBe(200);
    const lines = linesAbout(reqId);
    expect(lines.map((line) => line.msg)).toEqual(['okta events ignored', 'request']);
    expect(lines[0]).toMatchObject({
      count: MAX_OKTA_EVENTS_PER_DELIVERY - 1,
      reasons: { 'not an Okta event (uuid, published, eventType)': MAX_OKTA_EVENTS_PER_DELIVERY - 1 },
    });
    expect(lines[0]?.sample).toHaveLength(5);
    const total = async () => Object.values(await queued()).reduce((sum, n) => sum + n, 0);
    await expect.poll(total).toBe(1);
  });
});
