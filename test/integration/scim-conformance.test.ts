import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_REQUEST, startScimFixture, USER_SCHEMA, type ScimFixture } from '../support/scim-fixture.js';

// The conformance fixes of issue 14 (items 9-12), found by an independent RFC 7643/7644 suite,
// each replayed against the bridge's SCIM server (see test/support/scim-fixture.ts for what is real).

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('SCIM conformance', () => {
  let scim: ScimFixture;

  beforeAll(async () => {
    scim = await startScimFixture();
  });
  afterAll(async () => {
    await scim.close();
  });

  it('keeps emails[].display (readWrite, RFC 7643 §4.1.2) through POST, PUT and PATCH', async () => {
    const created = await scim
      .post('/Users', {
        schemas: [USER_SCHEMA],
        userName: 'display@example.com',
        emails: [
          { value: 'display@example.com', type: 'work', primary: true, display: 'Work mail' },
          { value: 'home@example.com', type: 'home' },
        ],
      })
      .expect(201);
    const id = created.body.id as string;
    const expected = [
      { value: 'display@example.com', type: 'work', primary: true, display: 'Work mail' },
      { value: 'home@example.com', type: 'home' },
    ];
    expect(created.body.emails).toEqual(expected);
    expect((await scim.get(`/Users/${id}`).expect(200)).body.emails).toEqual(expected);
    const patched = await scim
      .patch(
        `/Users/${id}`,
        { op: 'replace', path: 'emails[type eq "work"].display', value: 'Office' },
        {
          op: 'add',
          path: 'emails',
          value: [{ value: 'other@example.com', type: 'other', display: 'Other' }],
        },
      )
      .expect(200);
    expect(patched.body.emails).toEqual([
      { ...expected[0], display: 'Office' },
      expected[1],
      { value: 'other@example.com', type: 'other', display: 'Other' },
    ]);
    const replaced = await scim.put(`/Users/${id}`, {
      schemas: [USER_SCHEMA],
      userName: 'display@example.com',
      emails: [{ value: 'DISPLAY@example.com', type: 'work', display: 'Replaced' }],
    });
    expect(replaced.status).toBe(200);
    expect((await scim.get(`/Users/${id}`).expect(200)).body.emails).toEqual([
      { value: 'DISPLAY@example.com', type: 'work', display: 'Replaced' },
    ]);
  });

  it('keeps emails[].primary as sent, false included: POST, PUT and PATCH answers agree with later GETs', async () => {
    const emails = [
      { value: 'primary-a@example.com', type: 'work', primary: true },
      { value: 'primary-b@example.com', type: 'home', primary: false },
      { value: 'primary-c@example.com', type: 'other' },
    ];
    const created = await scim
      .post('/Users', { schemas: [USER_SCHEMA], userName: 'primary@example.com', emails })
      .expect(201);
    const id = created.body.id as string;
    const read = async () => (await scim.get(`/Users/${id}`).expect(200)).body.emails;
    expect(created.body.emails).toEqual(emails);
    expect(await read()).toEqual(emails);
    const patched = await scim
      .patch(`/Users/${id}`, { op: 'replace', path: 'emails[type eq "other"].primary', value: false })
      .expect(200);
    const allSaid = [emails[0], emails[1], { ...emails[2], primary: false }];
    expect(patched.body.emails).toEqual(allSaid);
    expect(await read()).toEqual(allSaid);
    const swapped = await scim
      .patch(`/Users/${id}`, { op: 'replace', path: 'emails[type eq "home"].primary', value: true })
      .expect(200);
    const homeFirst = [{ ...emails[0], primary: false }, { ...emails[1], primary: true }, allSaid[2]];
    expect(swapped.body.emails).toEqual(homeFirst);
    expect(await read()).toEqual(homeFirst);
    const unsaid = await scim
      .patch(`/Users/${id}`, { op: 'remove', path: 'emails[type eq "other"].primary' })
      .expect(200);
    expect(unsaid.body.emails[2]).toEqual(emails[2]);
    expect((await read())[2]).toEqual(emails[2]);
    const replaced = await scim
      .put(`/Users/${id}`, { schemas: [USER_SCHEMA], userName: 'primary@example.com', emails })
      .expect(200);
    expect(replaced.body.emails).toEqual(emails);
    expect(await read()).toEqual(emails);
  });

  it('keeps members[].display, and drops it with the member', async () => {
    const one = await scim.createUser('member-one@example.com');
    const two = await scim.createUser('member-two@example.com');
    const created = await scim
      .post('/Groups', { displayName: 'With displays', members: [{ value: one, display: 'Member One' }] })
      .expect(201);
    const id = created.body.id as string;
    expect(created.body.members).toEqual([expect.objectContaining({ value: one, display: 'Member One' })]);
    await scim.patch(`/Groups/${id}`, {
      op: 'add',
      path: 'members',
      value: [{ value: two, display: 'Two' }],
    });
    const members = async () => (await scim.get(`/Groups/${id}`).expect(200)).body.members;
    expect(await members()).toEqual(
      expect.arrayContaining([
        { value: one, display: 'Member One', $ref: expect.stringMatching(`/Users/${one}$`), type: 'User' },
        { value: two, display: 'Two', $ref: expect.stringMatching(`/Users/${two}$`), type: 'User' },
      ]),
    );
    await scim.patch(`/Groups/${id}`, { op: 'remove', path: `members[value eq "${two}"]` }).expect(204);
    await scim.patch(`/Groups/${id}`, { op: 'add', path: 'members', value: [{ value: two }] }).expect(204);
    const back = (await members()) as { value: string; display?: string }[];
    expect(back.find((member) => member.value === two)).not.toHaveProperty('display');
    expect(back.find((member) => member.value === one)?.display).toBe('Member One');
    await scim
      .put(`/Groups/${id}`, {
        schemas: [GROUP_SCHEMA],
        displayName: 'With displays',
        members: [{ value: two, display: 'Solo' }],
      })
      .expect(200);
    expect(await members()).toEqual([expect.objectContaining({ value: two, display: 'Solo' })]);
  });

  it('refuses a group as a member (400 invalidValue naming it) and changes nothing', async () => {
    const user = await scim.createUser('nested-user@example.com');
    const inner = (await scim.post('/Groups', { displayName: 'Inner' }).expect(201)).body.id as string;
    const outer = (
      await scim.post('/Groups', { displayName: 'Outer', members: [{ value: user }] }).expect(201)
    ).body.id as string;
    const refusals = [
      scim.patch(`/Groups/${outer}`, {
        op: 'add',
        path: 'members',
        value: [{ value: user }, { value: inner }],
      }),
      scim.patch(`/Groups/${outer}`, { op: 'replace', path: 'members', value: [{ value: inner }] }),
      scim.put(`/Groups/${outer}`, {
        schemas: [GROUP_SCHEMA],
        displayName: 'Outer',
        members: [{ value: inner }],
      }),
      scim.post('/Groups', { displayName: 'Nested', members: [{ value: inner }] }),
      // `type` is a label (RFC 7643 §4.2): a group's id is a group's whatever it says.
      scim.post('/Groups', { displayName: 'Typed', members: [{ value: inner, type: 'User' }] }),
    ];
    const answers = await Promise.all(refusals);
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body.scimType).toBe('invalidValue');
      expect(res.body.detail).toMatch(/nested groups are not supported/);
    }
    expect(answers[0]?.body.detail).toContain(inner);
    const read = await scim.get(`/Groups/${outer}`).expect(200);
    expect(read.body.members).toEqual([expect.objectContaining({ value: user })]);
    const others = await scim.get('/Groups', { filter: 'displayName eq "Nested" or displayName eq "Typed"' });
    expect(others.body.totalResults).toBe(0);
  });

  it('judges a member by what its value is, not by its type label, and answers with its real type', async () => {
    const user = await scim.createUser('typed-member@example.com');
    const other = await scim.createUser('typed-other@example.com');
    const labelled = [{ value: user, type: 'Group' }];
    const created = await scim.post('/Groups', { displayName: 'Labelled', members: labelled }).expect(201);
    const id = created.body.id as string;
    const asUser = (value: string) => expect.objectContaining({ value, type: 'User' });
    expect(created.body.members).toEqual([asUser(user)]);
    const members = async () => (await scim.get(`/Groups/${id}`).expect(200)).body.members;
    expect(await members()).toEqual([asUser(user)]);
    await scim
      .patch(`/Groups/${id}`, { op: 'add', path: 'members', value: [{ value: other, type: 'Group' }] })
      .expect(204);
    expect(await members()).toEqual(expect.arrayContaining([asUser(user), asUser(other)]));
    await scim
      .put(`/Groups/${id}`, {
        schemas: [GROUP_SCHEMA],
        displayName: 'Labelled',
        members: [{ value: other, type: 'group' }],
      })
      .expect(200);
    expect(await members()).toEqual([asUser(other)]);
    // An id the bridge does not hold yet is a user still to come, as for other inputs, whatever its label.
    await scim
      .post('/Groups', {
        displayName: 'Labelled later',
        members: [{ value: 'not-yet-known', type: 'Group' }],
      })
      .expect(201);
  });

  it('searches across Users and Groups at the root (POST /.search, RFC 7644 §3.4.3)', async () => {
    const users = ['root-a', 'root-b'];
    for (const name of users) await scim.createUser(`${name}@example.com`, { externalId: `root-${name}` });
    for (const name of ['root-g1', 'root-g2']) {
      await scim.post('/Groups', { displayName: name, externalId: `root-${name}` }).expect(201);
    }
    const filter = 'externalId sw "root-"';
    const all = await scim.post('/.search', { schemas: [SEARCH_REQUEST], filter }).expect(200);
    expect(all.body).toMatchObject({ totalResults: 4, startIndex: 1, itemsPerPage: 4 });
    expect(
      all.body.Resources.map((r: { schemas: string[]; externalId: string }) => [r.schemas[0], r.externalId]),
    ).toEqual([
      [USER_SCHEMA, 'root-root-a'],
      [USER_SCHEMA, 'root-root-b'],
      [GROUP_SCHEMA, 'root-root-g1'],
      [GROUP_SCHEMA, 'root-root-g2'],
    ]);
    const page = await scim
      .post('/.search', {
        schemas: [SEARCH_REQUEST],
        filter,
        startIndex: 2,
        count: 2,
        attributes: ['externalId'],
      })
      .expect(200);
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources).toEqual([
      { schemas: [USER_SCHEMA], id: expect.any(String), externalId: 'root-root-b' },
      { schemas: [GROUP_SCHEMA], id: expect.any(String), externalId: 'root-root-g1' },
    ]);
    const groupsOnly = await scim
      .post('/.search', { schemas: [SEARCH_REQUEST], filter, startIndex: 4, count: 10 })
      .expect(200);
    expect(groupsOnly.body.Resources.map((r: { displayName: string }) => r.displayName)).toEqual(['root-g2']);
    const byName = await scim.post('/.search', {
      schemas: [SEARCH_REQUEST],
      filter: 'displayName eq "ROOT-G1"',
    });
    expect(byName.body.Resources).toEqual([
      expect.objectContaining({ schemas: [GROUP_SCHEMA], displayName: 'root-g1' }),
    ]);
    expect((await scim.get('/.search').expect(501)).body.detail).toMatch(/POST/);
  });

  it("takes Entra's legacy manager path as the enterprise extension's manager", async () => {
    const boss = await scim.createUser('boss@example.com');
    const deputy = await scim.createUser('deputy@example.com');
    const id = await scim.createUser('report@example.com');
    const manager = async () => (await scim.get(`/Users/${id}`).expect(200)).body[ENTERPRISE]?.manager;
    for (const [value, expected] of [
      [boss, boss],
      [{ value: deputy }, deputy],
      [[{ $ref: null, value: boss }], boss],
    ] as const) {
      const res = await scim.patch(`/Users/${id}`, { op: 'Add', path: 'manager', value }).expect(200);
      expect(res.body.schemas).toContain(ENTERPRISE);
      expect(await manager()).toEqual({ value: expected });
    }
    await scim.patch(`/Users/${id}`, { op: 'Replace', path: 'manager', value: deputy }).expect(200);
    expect(await manager()).toEqual({ value: deputy });
    await scim
      .patch(`/Users/${id}`, { op: 'Remove', path: 'manager', value: [{ value: deputy }] })
      .expect(200);
    expect(await manager()).toBeUndefined();
    const unknown = await scim.patch(`/Users/${id}`, { op: 'add', path: 'nonsense', value: 'x' }).expect(400);
    expect(unknown.body.scimType).toBe('invalidPath');
  });
});
