import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimFixture, type ScimFixture } from '../support/scim-fixture.js';

// Issue 23, items 1 and 2: how Microsoft Entra ID checks and removes a user's manager, as its
// provisioning guide shows the requests, replayed against the bridge's SCIM server (see
// test/support/scim-fixture.ts for what is real).

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe("Entra's manager requests", () => {
  let scim: ScimFixture;
  let boss: string;
  let deputy: string;
  let report: string;

  beforeAll(async () => {
    scim = await startScimFixture();
    boss = await scim.createUser('manager-boss@example.com');
    deputy = await scim.createUser('manager-deputy@example.com');
    report = await scim.createUser('manager-report@example.com', { [ENTERPRISE]: { manager: boss } });
  });
  afterAll(async () => {
    await scim.close();
  });

  const managerOf = async (id: string) =>
    (await scim.get(`/Users/${id}`).expect(200)).body[ENTERPRISE]?.manager;

  it('finds a user by id and unprefixed manager (the check before a manager update)', async () => {
    const check = (manager: string) =>
      scim
        .get('/Users', { filter: `id eq "${report}" and manager eq "${manager}"`, attributes: 'id' })
        .expect(200);
    const found = await check(boss);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: report }] });
    expect(Object.keys(found.body.Resources[0]).sort()).toEqual(['id', 'schemas']);
    expect((await check(deputy)).body).toMatchObject({ totalResults: 0, Resources: [] });
    // The same filter with the attribute's full names, and `manager` alone.
    const qualified = await scim
      .get('/Users', { filter: `${ENTERPRISE}:manager.value eq "${boss}"` })
      .expect(200);
    expect(qualified.body.totalResults).toBe(1);
    const alone = await scim.get('/Users', { filter: `MANAGER eq "${boss}"` }).expect(200);
    expect(alone.body.Resources.map((r: { id: string }) => r.id)).toEqual([report]);
    const present = await scim.get('/Users', { filter: 'manager pr' }).expect(200);
    expect(present.body.Resources.map((r: { id: string }) => r.id)).toEqual([report]);
  });

  it('removes the manager with manager[value eq "…"], and only the manager it names', async () => {
    const other = await scim.createUser('manager-other@example.com', { [ENTERPRISE]: { manager: deputy } });
    const remove = (id: string, manager: string) =>
      scim.patch(`/Users/${id}`, { op: 'remove', path: `manager[value eq "${manager}"]` });
    // Another manager's id: nothing to remove.
    expect((await remove(other, boss).expect(200)).body[ENTERPRISE]?.manager).toEqual({ value: deputy });
    expect(await managerOf(other)).toEqual({ value: deputy });
    const answer = await remove(other, deputy).expect(200);
    expect(answer.body[ENTERPRISE]?.manager).toBeUndefined();
    expect(await managerOf(other)).toBeUndefined();
    const after = await scim
      .get('/Users', { filter: `id eq "${other}" and manager eq "${deputy}"`, attributes: 'id' })
      .expect(200);
    expect(after.body.totalResults).toBe(0);
    // The URN-qualified form, and a sub-attribute under the value filter.
    await scim
      .patch(`/Users/${other}`, { op: 'add', path: `${ENTERPRISE}:manager`, value: boss })
      .expect(200);
    await scim
      .patch(`/Users/${other}`, {
        op: 'replace',
        path: `${ENTERPRISE}:manager[value eq "${boss}"].value`,
        value: deputy,
      })
      .expect(200);
    expect(await managerOf(other)).toEqual({ value: deputy });
    await scim
      .patch(`/Users/${other}`, { op: 'remove', path: `${ENTERPRISE}:manager[value eq "${deputy}"]` })
      .expect(200);
    expect(await managerOf(other)).toBeUndefined();
    // A value filter on an attribute that is not complex stays a 400.
    const simple = await scim.patch(`/Users/${other}`, { op: 'remove', path: 'title[value eq "x"]' });
    expect(simple.status).toBe(400);
    expect(simple.body.scimType).toBe('invalidPath');
  });
});
