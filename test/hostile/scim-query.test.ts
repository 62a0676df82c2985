import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { MAX_ATTRIBUTE_NAMES, MAX_START_INDEX } from '../../src/sources/scim/list-request.js';
import {
  SEARCH_REQUEST,
  startScimFixture,
  TOKEN,
  USER_SCHEMA,
  type ScimFixture,
} from '../support/scim-fixture.js';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

// Hostile SCIM query parameters and resource ids (issue 14, item 4, its SCIM part): numbers Redis
// cannot take, attribute lists without end, ids no identity can have. Each gets a 400 invalidValue
// (or the RFC's clamping) or a SCIM 404 — never a 500 — and the server keeps answering.

describe('hostile SCIM query parameters', () => {
  let scim: ScimFixture;
  const search = (path: string, body: Record<string, unknown>) =>
    scim.post(`${path}/.search`, { schemas: [SEARCH_REQUEST], ...body });

  beforeAll(async () => {
    scim = await startScimFixture();
    for (const name of ['one', 'two', 'three']) await scim.createUser(`${name}@example.com`);
  });
  afterAll(async () => {
    await scim.close();
  });

  it('refuses a startIndex beyond the bound or not an integer with 400 invalidValue, in a query and a SearchRequest', async () => {
    // 1e21 reached Redis as "1e+21" ("not an integer") and answered 500.
    for (const startIndex of [
      '1e21',
      '99999999999999999999999',
      String(MAX_START_INDEX + 1),
      '0x10',
      '1.5',
      'abc',
    ]) {
      const res = await scim.get('/Users', { startIndex }).expect(400);
      expect(res.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
      expect(res.body.detail).toContain('startIndex');
    }
    for (const path of ['/Users', '/Groups', '']) {
      expect((await search(path, { startIndex: 1e21 }).expect(400)).body.scimType).toBe('invalidValue');
      expect((await search(path, { startIndex: 2.5 }).expect(400)).body.scimType).toBe('invalidValue');
      expect((await search(path, { count: '1e3' }).expect(400)).body.scimType).toBe('invalidValue');
    }
    const last = await scim.get('/Users', { startIndex: String(MAX_START_INDEX) }).expect(200);
    expect(last.body).toMatchObject({ startIndex: MAX_START_INDEX, itemsPerPage: 0, Resources: [] });
    expect(last.body.totalResults).toBeGreaterThanOrEqual(3);
  });

  it('clamps what RFC 7644 §3.4.2.4 says to clamp: startIndex below 1, count below 0 or above 1000', async () => {
    const low = await scim.get('/Users', { startIndex: '-99999999999999999999', count: '1' }).expect(200);
    expect(low.body).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    const none = await scim.get('/Users', { count: '-10' }).expect(200);
    expect(none.body).toMatchObject({ itemsPerPage: 0, Resources: [] });
    const huge = await search('/Users', { count: 1e21 }).expect(200);
    expect(huge.body.itemsPerPage).toBe(huge.body.totalResults);
    const digits = await scim.get('/Users', { count: '99999999999999999999999' }).expect(200);
    expect(digits.body.itemsPerPage).toBe(digits.body.totalResults);
  });

  it('bounds attributes and excludedAttributes', async () => {
    const many = Array.from({ length: MAX_ATTRIBUTE_NAMES + 1 }, () => 'userName').join(',');
    for (const name of ['attributes', 'excludedAttributes']) {
      const res = await scim.get('/Users', { [name]: many }).expect(400);
      expect(res.body).toMatchObject({ scimType: 'invalidValue' });
      expect(res.body.detail).toContain(`more than ${MAX_ATTRIBUTE_NAMES}`);
      expect((await scim.get('/Users', { [name]: 'x'.repeat(5_000) }).expect(400)).body.scimType).toBe(
        'invalidValue',
      );
    }
    const listed = Array.from({ length: 50_000 }, () => 'userName');
    expect((await search('/Users', { attributes: listed }).expect(400)).body.scimType).toBe('invalidValue');
    const atLimit = Array.from({ length: MAX_ATTRIBUTE_NAMES }, () => 'userName').join(',');
    const page = await scim.get('/Users', { attributes: atLimit, count: '1' }).expect(200);
    expect(Object.keys(page.body.Resources[0]).sort()).toEqual(['id', 'schemas', 'userName']);
  });

  it('refuses a write whose attribute list is over the bound before storing anything', async () => {
    const many = Array.from({ length: MAX_ATTRIBUTE_NAMES + 1 }, () => 'id').join(',');
    const user = { schemas: [USER_SCHEMA], userName: 'never-stored@example.com' };
    const created = await scim.post(`/Users?attributes=${many}`, user).expect(400);
    expect(created.body.scimType).toBe('invalidValue');
    const group = { schemas: [GROUP_SCHEMA], displayName: 'Never stored' };
    await scim.post(`/Groups?excludedAttributes=${many}`, group).expect(400);
    const users = await scim.get('/Users', { filter: 'userName eq "never-stored@example.com"' }).expect(200);
    const groups = await scim.get('/Groups', { filter: 'displayName eq "Never stored"' }).expect(200);
    expect([users.body.totalResults, groups.body.totalResults]).toEqual([0, 0]);
  });

  it('answers a SCIM 404 for ids no identity can have, on every method', async () => {
    const id = await scim.createUser('target@example.com');
    for (const bad of ['%01', 'a%0Ab', '%7F', '%20%09']) {
      for (const path of [`/Users/${bad}`, `/Groups/${bad}`]) {
        const res = await scim.get(path).expect(404);
        expect(res.body).toMatchObject({
          schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
          status: '404',
        });
        await scim.patch(path, { op: 'replace', path: 'active', value: false }).expect(404);
        await request(scim.server.url)
          .delete(`/scim/v2${path}`)
          .set('Authorization', `Bearer ${TOKEN}`)
          .expect(404);
      }
    }
    const long = await scim.get(`/Users/${'x'.repeat(8_000)}`).expect(404);
    expect(long.text.length).toBeLessThan(1_000);
    await scim.get(`/Users/${id}`).expect(200);
  });
});

describe('hostile SCIM ids while Redis is down', () => {
  let redis: EmbeddedRedis;
  let scim: ScimFixture;

  beforeAll(async () => {
    redis = await startEmbeddedRedis();
    scim = await startScimFixture(redis.url);
  });
  afterAll(async () => {
    await scim.close();
    await redis.stop();
  });

  it('answers an impossible id with 404 before any Redis read, a possible one with 503', async () => {
    const id = await scim.createUser('down@example.com');
    redis.kill();
    await expect.poll(async () => (await scim.get(`/Users/${id}`)).status, { timeout: 10_000 }).toBe(503);
    await scim.get('/Users/%01').expect(404);
    await scim.get('/Groups/with%0Dreturn').expect(404);
  });
});
