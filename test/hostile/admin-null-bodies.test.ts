import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileBridge, type HostileBridge } from './bridge-fixture.js';

// Real: the whole bridge (Redis, BullMQ, HTTP on port 0) against the reference target. What is
// checked: a JSON body of `null` is bad input (400, nothing started), not the empty body a request
// may leave out — POST /admin/sync with `null` would otherwise start a real full sync, and a
// provision request a real write.
describe('a body of null on the admin routes', () => {
  let bridge: HostileBridge;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  const post = (path: string, raw: string) =>
    bridge.admin('post', path).set('Content-Type', 'application/json').send(raw);
  const syncs = async () =>
    ((await bridge.admin('get', '/admin/sync').expect(200)).body as { syncs: unknown[] }).syncs;

  it.each([
    ['/admin/sync', 'null'],
    ['/admin/identities/users/u1/provision', 'null'],
    ['/admin/failures/retry', 'null'],
  ])('refuses %s with %s: 400 naming the body', async (path, raw) => {
    const answer = await post(path, raw).expect(400);
    expect(JSON.stringify(answer.body)).toMatch(/body/);
    expect(await syncs()).toEqual([]);
  });

  it('refuses a candidate of null: a preview of nothing is not a preview of no scope and mapping', async () => {
    const answer = await post('/admin/sync', '{"dryRun": true, "candidate": null}').expect(400);
    expect(JSON.stringify(answer.body)).toMatch(/candidate: expected an object, received null/);
    expect(await syncs()).toEqual([]);
  });

  it('still takes a request without a body as the empty one; that sync has no preview to page', async () => {
    const answer = await bridge.admin('post', '/admin/sync').expect(202);
    expect(answer.body).toMatchObject({ started: true });
    const jobId = (answer.body as { jobId: string }).jobId;
    const preview = await bridge.admin('get', `/admin/sync/${jobId}/preview`).expect(404);
    expect(JSON.stringify(preview.body)).toMatch(/recorded no preview/);
  });
});
