import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { listen, type HttpServer } from '../../src/http/server.js';
import { startEmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { silentLogger, type Logger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { scimRouter } from '../../src/sources/scim/scim-router.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { logSink } from '../support/log-sink.js';
import { deleteKeys } from '../support/redis.js';

// Real: express, the SCIM router, Redis (the shared test server under a fresh prefix; a private
// one for the outage), the desired-state store and its BullMQ queue. No workers and no target:
// every answer here comes from Redis.

const TOKEN = 'scim-inbound-token-0123456789';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

function scimApp(config: Config, store: StoreSide, logger: Logger = silentLogger()): Express {
  const router = scimRouter({
    token: () => TOKEN,
    api: store.api,
    queries: store.scimQueries,
    now: () => store.clock.now(),
  });
  return buildApp({
    config,
    logger,
    metrics: createMetrics(),
    redis: store.redis,
    routes: [{ path: '/scim/v2', router }],
  });
}

describe('the SCIM server', () => {
  let config: Config;
  let store: StoreSide;
  let app: Express;
  let server: HttpServer;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  // One listener for the whole file: locations are built from the Host the client used.
  const http = () => request(server.url);
  const get = (path: string, query: Record<string, string> = {}) =>
    http().get(`/scim/v2${path}`).query(query).set(auth);
  const post = (path: string, body: unknown) =>
    http()
      .post(`/scim/v2${path}`)
      .set(auth)
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify(body));
  const patch = (path: string, ...Operations: unknown[]) =>
    http()
      .patch(`/scim/v2${path}`)
      .set(auth)
      .send({ schemas: [PATCH_OP], Operations });
  const createUser = async (userName: string, extra: Record<string, unknown> = {}) => {
    const res = await post('/Users', { schemas: [USER], userName, ...extra }).expect(201);
    return res.body.id as string;
  };
  const userNames = (body: { Resources: { userName: string }[] }) =>
    body.Resources.map((user) => user.userName);

  beforeAll(async () => {
    config = testConfig({ INBOUND_SCIM_TOKEN: TOKEN });
    store = await createStoreSide(config, 'producer', silentLogger());
    app = scimApp(config, store);
    server = await listen(app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close(100);
    await store.close();
    await deleteKeys(config.redis.keyPrefix);
  });

  it('answers 401 with a SCIM Error and WWW-Authenticate: Bearer for a missing or wrong token', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token' }, { Authorization: 'Basic abc' }]) {
      const res = await http().get('/scim/v2/Users').set(headers).expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(res.body).toMatchObject({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: '401',
      });
    }
  });

  it('describes itself: ServiceProviderConfig, ResourceTypes (with the enterprise extension), Schemas', async () => {
    const spc = await get('/ServiceProviderConfig').expect(200);
    expect(spc.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 1000 },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await get('/ResourceTypes').expect(200);
    expect(types.body.Resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          endpoint: '/Users',
          schemaExtensions: [
            { schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', required: false },
          ],
        }),
        expect.objectContaining({ endpoint: '/Groups' }),
      ]),
    );
    const schemas = await get('/Schemas').expect(200);
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toEqual(
      expect.arrayContaining([USER, 'urn:ietf:params:scim:schemas:core:2.0:Group']),
    );
    // A group's members are users only: what the schema offers is what a group accepts.
    type Attribute = {
      name: string;
      canonicalValues?: string[];
      referenceTypes?: string[];
      subAttributes?: Attribute[];
    };
    const group = (schemas.body.Resources as { id: string; attributes: Attribute[] }[]).find((r) =>
      r.id.endsWith(':core:2.0:Group'),
    );
    const member = group?.attributes.find((a) => a.name === 'members')?.subAttributes ?? [];
    expect(member.find((a) => a.name === 'type')?.canonicalValues).toEqual(['User']);
    expect(member.find((a) => a.name === '$ref')?.referenceTypes).toEqual(['User']);
    await post('/Bulk', { Operations: [] }).expect(501);
    await get('/Nowhere').expect(404);
  });

  it('creates (201 + Location), reads, replaces and deletes (204) a user with its own UUID', async () => {
    const created = await post('/Users', {
      schemas: [USER],
      userName: 'lifecycle@example.com',
      externalId: 'idp-lifecycle',
      name: { givenName: 'Life', familyName: 'Cycle' },
      title: 'Tester',
    }).expect(201);
    const id = created.body.id as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.headers.location).toBe(created.body.meta.location);
    expect(created.headers.location).toMatch(new RegExp(`/scim/v2/Users/${id}$`));
    expect(created.body).toMatchObject({ active: true, title: 'Tester', meta: { resourceType: 'User' } });
    // A write is answered without reading it back: its meta times are the store clock's taken just
    // before the write, which the stored ones may follow by a few milliseconds.
    const read = (await get(`/Users/${id}`).expect(200)).body;
    const { meta, ...rest } = created.body;
    expect(read).toEqual({
      ...rest,
      meta: { ...meta, created: expect.any(String), lastModified: read.meta.created },
    });
    expect(Number.isNaN(Date.parse(read.meta.created))).toBe(false);

    const replaced = await http()
      .put(`/scim/v2/Users/${id}`)
      .set(auth)
      .send({
        schemas: [USER],
        id,
        userName: 'lifecycle@example.com',
        name: { givenName: 'Life' },
        meta: created.body.meta,
      })
      .expect(200);
    expect(replaced.body).toMatchObject({
      externalId: 'idp-lifecycle',
      active: true,
      name: { givenName: 'Life' },
    });
    expect(replaced.body.title).toBeUndefined();
    expect(replaced.body.name.familyName).toBeUndefined();

    await http().delete(`/scim/v2/Users/${id}`).set(auth).expect(204);
    const gone = await get(`/Users/${id}`).expect(404);
    expect(gone.body).toMatchObject({ status: '404', detail: expect.stringContaining(id) });
    await http().delete(`/scim/v2/Users/${id}`).set(auth).expect(404);
    await patch(`/Users/${id}`, { op: 'replace', path: 'active', value: false }).expect(404);
  });

  it('keeps userName and group displayName unique, case-insensitively (409 uniqueness)', async () => {
    await createUser('Unique.Person@Example.com');
    const taken = await post('/Users', { schemas: [USER], userName: 'unique.person@example.COM' }).expect(
      409,
    );
    expect(taken.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const other = await createUser('other.person@example.com');
    await patch(`/Users/${other}`, {
      op: 'replace',
      path: 'userName',
      value: 'UNIQUE.person@example.com',
    }).expect(409);
    await post('/Groups', { displayName: 'Unique Group' }).expect(201);
    const group = await post('/Groups', { displayName: 'UNIQUE group' }).expect(409);
    expect(group.body.scimType).toBe('uniqueness');
  });

  it('pages in stable creation order with integer paging numbers, never slicing a page twice', async () => {
    const prefix = `page-${Date.now()}`;
    for (let i = 0; i < 7; i += 1) await createUser(`${prefix}-${i}@example.com`);
    const filter = `userName sw "${prefix}"`;
    const all = await get('/Users', { filter, count: '100' }).expect(200);
    expect(userNames(all.body)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `${prefix}-${i}@example.com`));
    for (const [startIndex, count] of [
      [1, 3],
      [4, 3],
      [7, 3],
      [2, 3],
      [3, 5],
      [9, 2],
    ] as const) {
      const res = await get('/Users', {
        filter,
        startIndex: String(startIndex),
        count: String(count),
      }).expect(200);
      expect(res.body).toMatchObject({ schemas: [LIST], totalResults: 7, startIndex });
      expect(res.body.itemsPerPage).toBe(res.body.Resources.length);
      expect(userNames(res.body)).toEqual(userNames(all.body).slice(startIndex - 1, startIndex - 1 + count));
    }
    const unfiltered = await get('/Users', { startIndex: '2', count: '2' }).expect(200);
    expect(Number.isInteger(unfiltered.body.totalResults) && unfiltered.body.totalResults >= 7).toBe(true);
    expect(unfiltered.body.Resources).toHaveLength(2);
    const countOnly = await get('/Users', { filter, count: '0' }).expect(200);
    expect(countOnly.body).toMatchObject({ totalResults: 7, itemsPerPage: 0, Resources: [] });
  });

  it('answers look-ups from the indexes: case-insensitive userName, escaped quotes, e-mails, disabled users', async () => {
    const quoted = 'o"brien\\x@example.com';
    const id = await createUser(quoted, {
      externalId: 'Ext-Quoted',
      emails: [{ value: 'Quoted@Example.com', type: 'work', primary: true }],
      active: false,
    });
    const one = async (query: Record<string, string>) => (await get('/Users', query).expect(200)).body;
    expect(
      (await one({ filter: `userName eq ${JSON.stringify(quoted.toUpperCase())}` })).Resources[0],
    ).toMatchObject({ id, active: false });
    expect((await one({ filter: 'externalId eq "Ext-Quoted"' })).totalResults).toBe(1);
    expect((await one({ filter: 'externalId eq "ext-quoted"' })).totalResults).toBe(0);
    expect((await one({ filter: 'emails.value eq "quoted@example.COM"' })).totalResults).toBe(1);
    expect(
      (await one({ filter: 'emails[type eq "work" and value eq "quoted@example.com"]' })).totalResults,
    ).toBe(1);
    expect((await one({ filter: 'emails[type eq "work"].value eq "quoted@example.com"' })).totalResults).toBe(
      1,
    );
    expect((await one({ filter: `id eq "${id}" and active eq false` })).totalResults).toBe(1);
    expect((await one({ filter: `id eq "${id}" and active eq true` })).totalResults).toBe(0);
    expect((await one({ filter: 'userName co "BRIEN\\\\X"' })).totalResults).toBe(1);
    const none = await one({ filter: 'userName eq "1f6d1f8e-5b7c-4a4e-9d3f-6d2a7c9b0e11"' });
    expect(none).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    const invalid = await get('/Users', { filter: 'userName eq "unterminated' }).expect(400);
    expect(invalid.body).toMatchObject({
      scimType: 'invalidFilter',
      detail: expect.stringContaining('unterminated'),
    });
  });

  it("serves groups with and without members, and finds a member's groups", async () => {
    const member = await createUser('member@example.com');
    const created = await post('/Groups', {
      displayName: 'Readers',
      externalId: 'grp-readers',
      members: [{ value: member }],
    }).expect(201);
    const id = created.body.id as string;
    expect(created.body.members).toEqual([
      { value: member, $ref: expect.stringMatching(`/Users/${member}$`), type: 'User' },
    ]);
    expect(
      (await get(`/Groups/${id}`, { excludedAttributes: 'members' }).expect(200)).body.members,
    ).toBeUndefined();
    const byMember = await get('/Groups', {
      filter: `members[value eq "${member}"]`,
      excludedAttributes: 'members',
    }).expect(200);
    expect(byMember.body.Resources).toEqual([expect.objectContaining({ id, displayName: 'Readers' })]);
    expect(byMember.body.Resources[0].members).toBeUndefined();
    const byName = await get('/Groups', { filter: 'displayName eq "READERS"' }).expect(200);
    expect(byName.body.Resources[0].members).toHaveLength(1);
    const user = await get(`/Users/${member}`).expect(200);
    expect(user.body.groups).toEqual([
      { value: id, $ref: expect.stringMatching(`/Groups/${id}$`), type: 'direct' },
    ]);
    await patch(`/Groups/${id}`, { op: 'remove', path: `members[value eq "${member}"]` }).expect(204);
    const withAttributes = await http()
      .patch(`/scim/v2/Groups/${id}?attributes=displayName`)
      .set(auth)
      .send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Writers' }] })
      .expect(200);
    expect(withAttributes.body).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      id,
      displayName: 'Writers',
    });
  });

  it('loses no change when one IdP sends concurrent PATCHes for one user or one group', async () => {
    const user = await createUser('concurrent@example.com');
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        patch(`/Users/${user}`, { op: 'add', path: 'entitlements', value: [{ value: `e-${i}` }] }).expect(
          200,
        ),
      ),
    );
    expect((await get(`/Users/${user}`).expect(200)).body.entitlements).toHaveLength(12);
    const group = (await post('/Groups', { displayName: 'Concurrent' }).expect(201)).body.id as string;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        patch(`/Groups/${group}`, { op: 'Add', path: 'members', value: [{ value: `m-${i}` }] }).expect(204),
      ),
    );
    expect((await get(`/Groups/${group}`).expect(200)).body.members).toHaveLength(12);
  });

  it('answers 413 over 1 MiB, 415 for other media types and 400 for broken or odd bodies', async () => {
    const big = { schemas: [USER], userName: 'big@example.com', title: 'x'.repeat(1_100_000) };
    expect((await post('/Users', big).expect(413)).body.status).toBe('413');
    await http()
      .post('/scim/v2/Users')
      .set(auth)
      .set('Content-Type', 'text/plain')
      .send('userName=x')
      .expect(415);
    const broken = await http()
      .post('/scim/v2/Users')
      .set(auth)
      .set('Content-Type', 'application/scim+json')
      .send('{"userName":');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ scimType: 'invalidSyntax' });
    expect((await post('/Users', ['not', 'an', 'object']).expect(400)).body.scimType).toBe('invalidSyntax');
    expect((await post('/Users', { name: { givenName: 'No userName' } }).expect(400)).body.detail).toMatch(
      /userName is required/,
    );
    expect(
      (await post('/Users', { userName: 'x@example.com', active: 'perhaps' }).expect(400)).body.detail,
    ).toMatch(/active/);
  });

  it('accepts a password but never stores, logs or returns it', async () => {
    const password = 'Pa55word-never-kept-7b1c';
    const sink = logSink([], 'debug');
    const logged = scimApp(config, store, sink.logger);
    const created = await request(logged)
      .post('/scim/v2/Users')
      .set(auth)
      .send({ schemas: [USER], userName: 'secretive@example.com', password })
      .expect(201);
    const id = created.body.id as string;
    await request(logged)
      .patch(`/scim/v2/Users/${id}`)
      .set(auth)
      .send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { password: `${password}-2` } }] })
      .expect(200);
    const read = await get(`/Users/${id}`).expect(200);
    expect(JSON.stringify([created.body, read.body])).not.toContain(password);
    const hash = await store.redis.hgetall(store.keys.identity('user', id));
    const history = await store.redis.lrange(store.keys.history('user', id), 0, -1);
    expect(JSON.stringify([hash, history])).not.toContain(password);
    expect(sink.text()).not.toContain(password);
    expect(sink.lines().length).toBeGreaterThan(0);
  });
});

describe('the SCIM server while Redis is down', () => {
  it('answers 503 with Retry-After, never 404, and recovers when Redis is back', async () => {
    const redis = await startEmbeddedRedis();
    const config = testConfig({ REDIS_URL: redis.url, INBOUND_SCIM_TOKEN: TOKEN });
    const store = await createStoreSide(config, 'producer', silentLogger());
    const app = scimApp(config, store);
    const auth = { Authorization: `Bearer ${TOKEN}` };
    try {
      const id = (
        await request(app)
          .post('/scim/v2/Users')
          .set(auth)
          .send({ userName: 'outage@example.com' })
          .expect(201)
      ).body.id as string;
      redis.kill();
      const read = await request(app).get(`/scim/v2/Users/${id}`).set(auth).expect(503);
      expect(read.headers['retry-after']).toBe('5');
      expect(read.body).toMatchObject({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: '503',
      });
      await request(app)
        .get('/scim/v2/Users')
        .query({ filter: 'userName eq "outage@example.com"' })
        .set(auth)
        .expect(503);
      await request(app)
        .post('/scim/v2/Users')
        .set(auth)
        .send({ userName: 'during@example.com' })
        .expect(503);
      await request(app).delete(`/scim/v2/Users/${id}`).set(auth).expect(503);
      await redis.restart();
      // The private server keeps nothing on disk: back up, it is empty, and writes work again.
      const status = async () => (await request(app).get(`/scim/v2/Users/${id}`).set(auth)).status;
      await expect.poll(status, { timeout: 10_000 }).toBe(404);
      await request(app).post('/scim/v2/Users').set(auth).send({ userName: 'after@example.com' }).expect(201);
    } finally {
      await store.close();
      await redis.stop();
    }
  });
});
