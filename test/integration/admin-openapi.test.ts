import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminOpenApi } from '../../src/admin/openapi.js';
import { ADMIN_OPERATIONS } from '../../src/admin/openapi-paths.js';
import { SyncProgressEvent } from '../../src/admin/schemas/sync.schema.js';
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

type Operation = {
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, unknown> };
};

/** The zod schema of an answer, as openapi-paths.ts names it (JSON answers only). */
function answerSchema(method: string, path: string, status: number) {
  const operation = ADMIN_OPERATIONS.find((op) => op.method === method && op.path === path);
  const answer = operation?.answers[String(status)];
  return answer?.body && (answer.type ?? 'application/json') === 'application/json' ? answer.body : undefined;
}

// Real: the bridge's admin API over HTTP, Redis, BullMQ, the reference target. Every admin route's
// real responses (successes and errors) are validated against the document it serves and against
// the zod schemas it is generated from; every JSON body sent is checked against the document too.
describe('admin API OpenAPI document', () => {
  let fixture: AdminFixture;
  let document: { paths: Record<string, Record<string, Operation>>; components: { schemas: object } };
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

  /** The document's schema at a JSON pointer, compiled once. */
  function validator(...pointer: string[]): ValidateFunction {
    const id = `openapi.json#/${pointer.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
    let validate = validators.get(id);
    if (!validate) validators.set(id, (validate = ajv.compile({ $ref: id })));
    return validate;
  }

  /**
   * Validates a real response against the document's schema for its path, method and status, and
   * against the zod schema the document was generated from.
   */
  function check(method: string, path: string, res: Response): Response {
    const status = String(res.status);
    const operation = document.paths[path]?.[method];
    expect(operation?.responses[status], `${method} ${path} ${status} is documented`).toBeDefined();
    const validate = validator(
      'paths',
      path,
      method,
      'responses',
      status,
      'content',
      'application/json',
      'schema',
    );
    const valid = validate(res.body);
    expect(valid, `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    const parsed = answerSchema(method, path, res.status)?.safeParse(res.body);
    expect(parsed?.success, `${method} ${path} ${status} (zod): ${parsed?.error?.message}`).toBe(true);
    seen.add(`${method.toUpperCase()} ${path}`);
    return res;
  }

  /** A JSON body the document refuses is one the API refuses too (400), and none it takes is refused. */
  function checkBody(path: string, body: object | undefined, res: Response): void {
    if (body === undefined || !document.paths[path]?.post?.requestBody) return;
    const content = ['paths', path, 'post', 'requestBody', 'content', 'application/json', 'schema'];
    const documented = validator(...content)(body);
    if (!documented) expect(res.status, `POST ${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
    if (res.status < 300)
      expect(documented, `POST ${path}: the document refuses what the API took`).toBe(true);
  }

  const get = async (url: string, path: string, headers = auth) =>
    check('get', path, await fixture.http().get(url).set(headers));
  const post = async (url: string, path: string, body?: object, headers = auth) => {
    const res = check('post', path, await fixture.http().post(url).set(headers).send(body));
    checkBody(path, body, res);
    return res;
  };

  it('is generated from the schemas and names every route the admin routers mount', () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(buildAdminOpenApi())));
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const mounted = adminRouteTable(fixture).map((r) => `${r.method} ${openApiPath(r)}`);
    expect(mounted.sort()).toEqual(documented.sort());
    expect(mounted.length).toBeGreaterThanOrEqual(14);
    // Every JSON body, asked or answered, is a named schema of components.
    const refs = JSON.stringify(document.paths).match(/"application\/json":\{"schema":\{[^}]*\}/g) ?? [];
    for (const ref of refs) expect(ref).toMatch(/"\$ref":"#\/components\/schemas\/\w+"/);
    expect(refs.length).toBeGreaterThan(40);
  });

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
    await post('/admin/sync', '/admin/sync', { input: '', dryRun: 'yes' });
    // A snapshot as NDJSON, read as a stream: a line that is no user is refused naming it.
    const ndjson = async (text: string) =>
      check(
        'post',
        '/admin/sync',
        await fixture
          .http()
          .post('/admin/sync')
          .set(auth)
          .set('Content-Type', 'application/x-ndjson')
          .send(text),
      );
    expect((await ndjson('{"options": {"dryRun": true}}\n{"user": {"id": "x"}}\n')).status).toBe(400);
    const streamed = await ndjson(
      `{"options": {"dryRun": true}}\n${JSON.stringify({ user: snapshotOf(1).users[0] })}\n`,
    );
    expect((await settledSync(fixture, streamed.body.jobId)).state).toBe('completed');

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
    // Provisioning on demand needs an input read one identity at a time; this bridge has none.
    const provision = '/admin/identities/{kind}/{key}/provision';
    await post('/admin/identities/users/u1/provision', provision, { dryRun: true });
    await post('/admin/identities/users/u1/provision', provision, { dryRun: 'yes' });
    await post('/admin/identities/robots/u1/provision', provision, {});

    // What the dashboard's views read: changes by page, the progress stream, the platform copy.
    const changes = '/admin/sync/{jobId}/changes';
    await get(`/admin/sync/${started.body.jobId}/changes?action=create&limit=2`, changes);
    await get(`/admin/sync/${held.body.jobId}/changes`, changes);
    await get(`/admin/sync/${started.body.jobId}/changes?limit=0`, changes);
    await get('/admin/sync/sync-nothing-0/changes', changes);
    const events = '/admin/sync/{jobId}/events';
    await get('/admin/sync/sync-nothing-0/events', events);
    const stream = await fixture.http().get(`/admin/sync/${started.body.jobId}/events`).set(auth).expect(200);
    const [, data] = /^event: end\ndata: (.*)$/m.exec(stream.text) ?? [];
    const progressEvent = ajv.compile({ $ref: 'openapi.json#/components/schemas/SyncProgressEvent' });
    expect(progressEvent(JSON.parse(data ?? 'null')), ajv.errorsText(progressEvent.errors)).toBe(true);
    expect(SyncProgressEvent.safeParse(JSON.parse(data ?? 'null')).success).toBe(true);
    expect(document.paths[events]?.get?.responses['200']).toBeDefined();
    seen.add(`GET ${events}`);
    const platform = '/admin/identities/{kind}/{key}/platform';
    await get('/admin/identities/users/u1/platform', platform);
    await get('/admin/identities/groups/Engineering/platform', platform);
    await get('/admin/identities/users/bad/platform', platform);
    await get('/admin/identities/users/u-missing/platform', platform);
    await get('/admin/identities/robots/u1/platform', platform);
    await fixture.target.faults.setOutage('refuse');
    await get('/admin/identities/users/u1/platform', platform).finally(() =>
      fixture.target.faults.setOutage(null),
    );

    // The conflict inbox: the IdP pushes a user whose userName the directory's user1 holds.
    await fixture.engine.bridge.store.api
      .as('scim')
      .upsertUser({ id: 'scim-u1', userName: 'USER1@example.com', active: true });
    const inbox = await get('/admin/conflicts', '/admin/conflicts');
    const [open] = inbox.body.items as { id: string }[];
    expect(open).toBeDefined();
    await get('/admin/conflicts?status=all&limit=1', '/admin/conflicts');
    await get('/admin/conflicts?status=closed', '/admin/conflicts');
    const resolve = '/admin/conflicts/{id}/resolve';
    await post(`/admin/conflicts/${open?.id}/resolve`, resolve, { action: 'ignore' });
    await post(`/admin/conflicts/${open?.id}/resolve`, resolve, { action: 'ignore' });
    await post(`/admin/conflicts/${open?.id}/resolve`, resolve, { action: 'ignore', targetId: 'x' });
    await post('/admin/conflicts/c0123456789abcdef0123/resolve', resolve, { action: 'link' });
    await get('/admin/identities/users/scim-u1', path);
    await post(`/admin/conflicts/${open?.id}/resolve`, resolve, { action: 'link' });
    await get('/admin/identities/users/user1@example.com', path);
    await get('/admin/status', '/admin/status');

    // A link-only run (a dry one) beside another input's user: its lists, by page.
    const linkOnly = await post('/admin/sync', '/admin/sync', {
      snapshot: snapshotOf(6),
      linkOnly: true,
      dryRun: true,
    });
    expect(await settledSync(fixture, linkOnly.body.jobId)).toMatchObject({
      state: 'completed',
      linkOnly: true,
    });
    await get(`/admin/sync/${linkOnly.body.jobId}`, '/admin/sync/{jobId}');
    for (const action of [
      'ownedElsewhere',
      'linked',
      'unmatchedInSource',
      'unmatchedOnPlatform',
      'ambiguous',
    ])
      await get(`/admin/sync/${linkOnly.body.jobId}/changes?action=${action}`, changes);
    // A sync without a preview: its preview page is empty.
    await get(`/admin/sync/${linkOnly.body.jobId}/preview?category=leaving`, '/admin/sync/{jobId}/preview');

    // Every route of the table was validated at least once.
    const routes = adminRouteTable(fixture).map((r) => `${r.method} ${openApiPath(r)}`);
    expect([...seen].sort()).toEqual(expect.arrayContaining(routes.sort()));
    expect(routes.every((route) => seen.has(route))).toBe(true);
  });
  it('describes provisioning on demand from a directory file: the steps, applied, and a key it lacks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-openapi-'));
    const file = join(dir, 'directory.json');
    writeFileSync(file, JSON.stringify(snapshotOf(3)));
    const own = await startAdminFixture({ DIRECTORY_SOURCE: 'file', DIRECTORY_FILE: file });
    try {
      const path = '/admin/identities/{kind}/{key}/provision';
      const send = async (url: string, body: object) =>
        check('post', path, await own.http().post(url).set(auth).send(body));
      const dry = await send('/admin/identities/users/u1/provision', { dryRun: true });
      expect(dry.body.steps).toMatchObject({ read: { found: true, id: 'u1' }, action: { action: 'create' } });
      const real = await send('/admin/identities/groups/g-eng/provision', {});
      expect(real.body.steps.members).toMatchObject({ total: 2, inScope: 2 });
      expect(real.body.steps.applied).toMatchObject({ state: 'converged', total: 3 });
      expect(own.target.groups().map((g) => [g.displayName, g.members?.length])).toEqual([
        ['Engineering', 2],
      ]);
      const missing = await send('/admin/identities/users/u-missing/provision', { dryRun: true });
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toContain('lists no user u-missing');
      await send('/admin/identities/users/u1/provision', { input: 'okta' });
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
