import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimFixture, USER_SCHEMA, type ScimFixture } from '../support/scim-fixture.js';

// Hostile SCIM resources (issue 23, item 5): a list where the schema says a single complex value
// (`name`, the enterprise extension's `manager`) is a type error like any other — 400 invalidValue
// naming the attribute, nothing stored — in POST and PUT bodies and in PATCH values. Entra's legacy
// `"path": "manager"` with a list of one `{"value": id}` stays accepted (its older documentation).

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('hostile SCIM value shapes', () => {
  let scim: ScimFixture;
  let id: string;

  beforeAll(async () => {
    scim = await startScimFixture();
    id = await scim.createUser('shapes@example.com', { name: { givenName: 'Shape' } });
  });
  afterAll(async () => {
    await scim.close();
  });

  const refused = (res: { status: number; body: { scimType?: string; detail?: string } }, named: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.scimType).toBe('invalidValue');
    expect(res.body.detail).toContain(`${named}: expected a single value, not a list`);
  };

  it('refuses a list for a single-valued complex attribute in a POST, and stores nothing', async () => {
    const bodies: [Record<string, unknown>, string][] = [
      [{ name: [{ givenName: 'a' }] }, 'name'],
      [{ name: [{ givenName: 'a' }, { familyName: 'b' }] }, 'name'],
      [{ [ENTERPRISE]: { manager: [{ value: 'boss' }] } }, `${ENTERPRISE}:manager`],
      [{ [`${ENTERPRISE}:manager`]: [{ value: 'boss' }] }, `${ENTERPRISE}:manager`],
      [{ 'name.givenName': ['a'] }, 'name.givenName'],
      [{ active: ['True'] }, 'active'],
    ];
    for (const [index, [attributes, named]] of bodies.entries()) {
      const userName = `never-${index}@example.com`;
      refused(await scim.post('/Users', { schemas: [USER_SCHEMA], userName, ...attributes }), named);
      const found = await scim.get('/Users', { filter: `userName eq "${userName}"` }).expect(200);
      expect(found.body.totalResults).toBe(0);
    }
  });

  it('refuses it in a PUT and in PATCH values, and leaves the user as it was', async () => {
    const before = (await scim.get(`/Users/${id}`).expect(200)).body;
    refused(
      await scim.put(`/Users/${id}`, {
        schemas: [USER_SCHEMA],
        userName: 'shapes@example.com',
        name: [{ givenName: 'a' }],
      }),
      'name',
    );
    refused(
      await scim.patch(`/Users/${id}`, { op: 'replace', path: 'name', value: [{ givenName: 'a' }] }),
      'name',
    );
    refused(await scim.patch(`/Users/${id}`, { op: 'add', value: { name: [{ givenName: 'a' }] } }), 'name');
    refused(
      await scim.patch(`/Users/${id}`, {
        op: 'add',
        path: `${ENTERPRISE}:manager`,
        value: [{ value: 'boss' }],
      }),
      `${ENTERPRISE}:manager`,
    );
    expect((await scim.get(`/Users/${id}`).expect(200)).body).toEqual(before);
  });

  it("still takes Entra's legacy manager path with a list of one", async () => {
    await scim
      .patch(`/Users/${id}`, { op: 'Add', path: 'manager', value: [{ $ref: null, value: 'boss' }] })
      .expect(200);
    expect((await scim.get(`/Users/${id}`).expect(200)).body[ENTERPRISE]).toEqual({
      manager: { value: 'boss' },
    });
  });
});
