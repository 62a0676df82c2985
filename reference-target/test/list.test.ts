import { describe, expect, it } from 'vitest';
import { ERROR_SCHEMA, filterQuery, scim, startTarget, USER_SCHEMA, type ListBody } from './scim-http.js';
import type { ReferenceTarget } from '../src/index.js';

// Real reference target over real HTTP; nothing is faked.

const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

function seedUsers(target: ReferenceTarget, count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => target.insertUser({ userName: `user${index}@example.com` }).id,
  );
}

describe('GET /Users lists', () => {
  it('answers a ListResponse with totalResults, startIndex, itemsPerPage and Resources', async () => {
    const target = await startTarget();
    seedUsers(target, 3);
    const reply = await scim<ListBody>(target, 'GET', '/Users');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      schemas: [LIST_RESPONSE],
      totalResults: 3,
      startIndex: 1,
      itemsPerPage: 3,
    });
    expect(reply.body.Resources.map((user) => user.userName)).toEqual([
      'user0@example.com',
      'user1@example.com',
      'user2@example.com',
    ]);
  });

  it('caps the page at the page-size cap (count=500 with cap 100 gives 100)', async () => {
    const target = await startTarget();
    seedUsers(target, 250);
    const capped = await scim<ListBody>(target, 'GET', '/Users?count=500');
    expect(capped.body).toMatchObject({ totalResults: 250, startIndex: 1, itemsPerPage: 100 });
    expect(capped.body.Resources).toHaveLength(100);
    const byDefault = await scim<ListBody>(target, 'GET', '/Users');
    expect(byDefault.body.itemsPerPage).toBe(100);
  });

  it('takes the cap from the pageCap option', async () => {
    const target = await startTarget({ pageCap: 7 });
    seedUsers(target, 20);
    const reply = await scim<ListBody>(target, 'GET', '/Users?count=50');
    expect(reply.body.itemsPerPage).toBe(7);
  });

  it('covers every user exactly once when walking startIndex by itemsPerPage', async () => {
    const target = await startTarget({ pageCap: 10 });
    const ids = seedUsers(target, 95);
    const seen: unknown[] = [];
    let startIndex = 1;
    for (;;) {
      const page = await scim<ListBody>(target, 'GET', `/Users?startIndex=${startIndex}&count=1000`);
      expect(page.body.startIndex).toBe(startIndex);
      expect(page.body.totalResults).toBe(95);
      if (page.body.itemsPerPage === 0) break;
      seen.push(...page.body.Resources.map((user) => user.id));
      startIndex += page.body.itemsPerPage;
    }
    expect(seen).toEqual(ids);
  });

  it('keeps creation order stable across deletions', async () => {
    const target = await startTarget();
    const ids = seedUsers(target, 6);
    target.deleteUser(ids[1] ?? '');
    target.deleteUser(ids[4] ?? '');
    target.insertUser({ userName: 'late@example.com' });
    const page = await scim<ListBody>(target, 'GET', '/Users?startIndex=2&count=2');
    expect(page.body.Resources.map((user) => user.id)).toEqual([ids[2], ids[3]]);
    expect(page.body.totalResults).toBe(5);
  });

  it('treats startIndex below 1 as 1 and negative count as 0 (RFC 7644 §3.4.2.4)', async () => {
    const target = await startTarget();
    seedUsers(target, 3);
    const zero = await scim<ListBody>(target, 'GET', '/Users?startIndex=0&count=2');
    expect(zero.body).toMatchObject({ startIndex: 1, itemsPerPage: 2 });
    const negative = await scim<ListBody>(target, 'GET', '/Users?startIndex=-5&count=-1');
    expect(negative.body).toMatchObject({ startIndex: 1, itemsPerPage: 0, totalResults: 3, Resources: [] });
  });

  it('answers count=0 with the total only, and a start beyond the end with an empty page', async () => {
    const target = await startTarget();
    seedUsers(target, 3);
    const countOnly = await scim<ListBody>(target, 'GET', '/Users?count=0');
    expect(countOnly.body).toMatchObject({ totalResults: 3, itemsPerPage: 0, Resources: [] });
    const beyond = await scim<ListBody>(target, 'GET', '/Users?startIndex=10');
    expect(beyond.body).toMatchObject({ totalResults: 3, startIndex: 10, itemsPerPage: 0, Resources: [] });
  });

  it('refuses non-integer paging parameters with 400 invalidValue', async () => {
    const target = await startTarget();
    for (const query of ['?count=ten', '?startIndex=1.5', '?count=1&count=2']) {
      const reply = await scim(target, 'GET', `/Users${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidValue' });
    }
  });

  it('filters: userName eq is case-insensitive, externalId eq and id eq are case-exact', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'Ada@Example.com', externalId: 'Ext-1' });
    target.insertUser({ userName: 'bob@example.com', externalId: 'ext-2' });
    const ids = async (filter: string): Promise<unknown[]> =>
      (await scim<ListBody>(target, 'GET', `/Users${filterQuery(filter)}`)).body.Resources.map(
        (user) => user.id,
      );
    expect(await ids('userName eq "ada@example.com"')).toEqual([ada.id]);
    expect(await ids('externalId eq "Ext-1"')).toEqual([ada.id]);
    expect(await ids('externalId eq "EXT-1"')).toEqual([]);
    expect(await ids(`id eq "${ada.id}"`)).toEqual([ada.id]);
    expect(await ids(`id eq "${ada.id.toUpperCase()}"`)).toEqual([]);
  });

  it('filters with the whole grammar, paging over the matches', async () => {
    const target = await startTarget();
    seedUsers(target, 30);
    const reply = await scim<ListBody>(
      target,
      'GET',
      `/Users${filterQuery('userName sw "user1" and not (userName eq "user1@example.com")', '&startIndex=3&count=4')}`,
    );
    expect(reply.body.totalResults).toBe(10);
    expect(reply.body.Resources.map((user) => user.userName)).toEqual([
      'user12@example.com',
      'user13@example.com',
      'user14@example.com',
      'user15@example.com',
    ]);
  });

  it('answers a malformed filter with 400 invalidFilter', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'GET', `/Users${filterQuery('userName eq ada')}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidFilter' });
    expect(reply.body.detail).toContain('userName eq ada');
  });

  it('projects attributes and excludedAttributes (RFC 7644 §3.4.2.5), always keeping id and schemas', async () => {
    const target = await startTarget();
    target.insertUser({
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
    });
    const only = await scim<ListBody>(
      target,
      'GET',
      '/Users?attributes=userName,name.givenName,emails.value',
    );
    expect(Object.keys(only.body.Resources[0] ?? {}).sort()).toEqual([
      'emails',
      'id',
      'name',
      'schemas',
      'userName',
    ]);
    expect(only.body.Resources[0]).toMatchObject({
      schemas: [USER_SCHEMA],
      name: { givenName: 'Ada' },
      emails: [{ value: 'ada@example.com' }],
    });
    expect(only.body.Resources[0]?.name).toEqual({ givenName: 'Ada' });
    const without = await scim<ListBody>(
      target,
      'GET',
      '/Users?excludedAttributes=emails,meta,name.familyName,id',
    );
    expect(without.body.Resources[0]).not.toHaveProperty('emails');
    expect(without.body.Resources[0]).not.toHaveProperty('meta');
    expect(without.body.Resources[0]?.name).toEqual({ givenName: 'Ada' });
    expect(without.body.Resources[0]).toHaveProperty('id');
  });
});
