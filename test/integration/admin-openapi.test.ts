import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminRouteTable,
  auth,
  BAD_USER,
  openApiPath,
  settledSync,
  snapshotOf,
  startAdminFixture,
  type AdminFixture,
} from './admin-fixture.js';

// Real: the bridge's admin API over HTTP, Redis, BullMQ, the reference target. Every admin route's
// real responses (successes and errors) are validated against the document it serves.
describe('admin API OpenAPI document', () => {
  let fixture: AdminFixture;
  let document: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const seen = new Set<string>();
  const validators = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    fixture = await startAdminFixture({ DEPROVISION_LIMIT: '1' });
    const res = await fixture.http().get('/admin/openapi.json').set(auth).expect(200);
    document = res.body;
    ajv.addSchema(res.body, 'openapi.json');
  });
  afterAll(async () => {
    await fixture?.close();
  });

  /** Validates a real response against the document's schema for its path, method and status. */
  function check(method: string, path: string, res: Response): Response {
    const pointer = [
      'paths',
      path,
      method,
      'responses',
      String(res.status),
      'content',
      'application/json',
      'schema',
    ]
      .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const id = `openapi.json#/${pointer}`;
    const operation = document.paths[path]?.[method];
    expect(
      operation?.responses[String(res.status)],
      `${method} ${path} ${res.status} is documented`,
    ).toBeDefined();
    let validate = validators.get(id);
    if (!validate) validators.set(id, (validate = ajv.compile({ $ref: id })));
    const valid = validate(res.body);
    expect(valid, `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    seen.add(`${method.toUpperCase()} ${path}`);
    return res;
  }

  const get = async (url: string, path: string, headers = auth) =>
    check('get', path, await fixture.http().get(url).set(headers));
  const post = async (url: string, path: string, body?: object, headers = auth) =>
    check('post', path, await fixture.http().post(url).set(headers).send(body));

  it('is a checker that rejects what the document does not describe', () => {
    const status = ajv.compile({ $ref: 'openapi.json#/components/schemas/Status' });
    expect(status({ status: 'ok' })).toBe(false);
    const identity = ajv.compile({ $ref: 'openapi.json#/components/schemas/Identity' });
    expect(
      identity({
        kind: 'user',
        id: 'u',
        key: 'user:u',
        matchedBy: 'id',
        status: 'in-sync',
        desired: null,
        targetId: null,
        managed: false,
        history: [],
        extra: 1,
      }),
    ).toBe(false);
    expect(document).toMatchObject({
      openapi: '3.1.0',
      components: { securitySchemes: { adminToken: { scheme: 'bearer' } } },
    });
  });

  it('describes every success and error the admin API answers', async () => {
    await get('/admin/status', '/admin/status');
    await get('/admin/openapi.json', '/admin/openapi.json');
    await get('/admin/status', '/admin/status', { Authorization: 'Bearer wrong-token-000000' });

    const started = await post('/admin/sync', '/admin/sync', { snapshot: snapshotOf(4) });
    const first = await settledSync(fixture, started.body.jobId);
    expect(first.state).toBe('completed');
    await get(`/admin/sync/${started.body.jobId}`, '/admin/sync/{jobId}');
    await post('/admin/sync', '/admin/sync', { snapshot: { users: [{ id: 'x' }], groups: [] } });
    await post('/admin/sync', '/admin/sync', { unknown: true });

    // Two users fewer than the limit allows: held, approved; then held again and cancelled.
    const held = await post('/admin/sync', '/admin/sync', { snapshot: snapshotOf(2) });
    expect((await settledSync(fixture, held.body.jobId)).state).toBe('awaiting-approval');
    await get('/admin/status', '/admin/status');
    await post('/admin/sync', '/admin/sync', { snapshot: snapshotOf(2) });
    await post(`/admin/sync/${held.body.jobId}/approve`, '/admin/sync/{jobId}/approve');
    await settledSync(fixture, held.body.jobId);
    await post(`/admin/sync/${held.body.jobId}/approve`, '/admin/sync/{jobId}/approve');
    await post(`/admin/sync/${held.body.jobId}/cancel`, '/admin/sync/{jobId}/cancel');
    const again = await post('/admin/sync', '/admin/sync', { snapshot: snapshotOf(5) });
    await settledSync(fixture, again.body.jobId);
    // An empty source is refused (failed, its error on the source's side); a shrunken one held, cancelled.
    const refused = await post('/admin/sync', '/admin/sync', { snapshot: { users: [], groups: [] } });
    expect(await settledSync(fixture, refused.body.jobId)).toMatchObject({
      state: 'failed',
      error: { code: 'source_empty', side: 'source' },
    });
    await get(`/admin/sync/${refused.body.jobId}`, '/admin/sync/{jobId}');
    const cancelled = await post('/admin/sync', '/admin/sync', { snapshot: snapshotOf(3), allowEmpty: true });
    expect(await settledSync(fixture, cancelled.body.jobId)).toMatchObject({ state: 'awaiting-approval' });
    await get(`/admin/sync/${cancelled.body.jobId}`, '/admin/sync/{jobId}');
    await get('/admin/identities/groups/g-eng', '/admin/identities/{kind}/{key}');
    await post(`/admin/sync/${cancelled.body.jobId}/cancel`, '/admin/sync/{jobId}/cancel');
    await get('/admin/sync/sync-nothing-0', '/admin/sync/{jobId}');
    await post('/admin/sync/sync-nothing-0/cancel', '/admin/sync/{jobId}/cancel');
    await get('/admin/sync?limit=5', '/admin/sync');
    await post('/admin/sync', '/admin/sync', { dryRun: true });

    await fixture.engine.bridge.store.api.upsertUser(BAD_USER);
    await fixture.engine.drain();
    const failures = await get('/admin/failures', '/admin/failures');
    expect(failures.body.items).toHaveLength(1);
    await get('/admin/failures?kind=nobody', '/admin/failures');
    await post('/admin/failures/retry', '/admin/failures/retry', { keys: ['user:bad'] });
    await post('/admin/failures/retry', '/admin/failures/retry', { keys: [] });
    const path = '/admin/identities/{kind}/{key}';
    const trace = await get('/admin/identities/users/bad', path);
    expect(trace.body.lastError).not.toBeNull();
    await get('/admin/identities/users/u1', path);
    await get('/admin/identities/groups/Engineering', path);
    await get('/admin/identities/users/u-missing', path);
    await get('/admin/identities/robots/u1', path);
    await get('/admin/status', '/admin/status');

    // Every route of the table was validated at least once.
    const routes = adminRouteTable(fixture).map((r) => `${r.method} ${openApiPath(r)}`);
    expect([...seen].sort()).toEqual(expect.arrayContaining(routes.sort()));
    expect(routes.every((route) => seen.has(route))).toBe(true);
  });
});
