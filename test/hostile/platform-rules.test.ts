import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fresh, startHostileBridge, userEvent, USER_SCHEMA, type HostileBridge } from './bridge-fixture.js';

// Real: the whole bridge (Redis, HTTP, the SCIM server, the webhooks, the admin API). What the
// platform documents it refuses (one primary e-mail at most, RFC 7643 §2.4; a userName, e-mail
// values, a displayName, member ids) is refused at every edge with 400, and nothing is stored.
describe("the platform's rules at the edges", () => {
  let bridge: HostileBridge;
  const stored = (id: string) => bridge.engine.bridge.store.desired.getUser(id);
  const twoPrimaries = [
    { value: 'a@example.com', primary: true },
    { value: 'b@example.com', primary: true },
  ];

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('refuses a signed event with two primary e-mails, naming the event and the field', async () => {
    const event = userEvent(fresh('e'), fresh('u'), { emails: twoPrimaries });
    const res = await bridge.signed({ events: [userEvent(fresh('e'), fresh('u')), event] });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual([
      `events[1] (id ${JSON.stringify(event.id)}) data.emails[1].primary: a second primary e-mail`,
    ]);
    expect(await stored(event.data.id)).toBeUndefined();
  });

  it('refuses a group event with a member id the store cannot hold', async () => {
    const res = await bridge.signed({
      id: fresh('e'),
      type: 'group.upserted',
      data: { id: fresh('g'), displayName: 'Ops', members: ['u-1', 'u\u0000nul'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual([
      expect.stringMatching(/data\.members\[1\]: must not hold control/),
    ]);
  });

  it('refuses the same user on the SCIM server (POST and PUT) with a SCIM 400 invalidValue', async () => {
    const userName = `${fresh('u')}@example.com`;
    const post = await bridge
      .scim('post', '/Users')
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName, emails: twoPrimaries }));
    expect(post.status).toBe(400);
    expect(post.body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
      detail: 'The platform refuses this: emails[1].primary: a second primary e-mail',
    });
    const created = await bridge
      .scim('post', '/Users')
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName }))
      .expect(201);
    const put = await bridge
      .scim('put', `/Users/${created.body.id as string}`)
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName, emails: twoPrimaries }));
    expect(put.status).toBe(400);
    const now = await bridge.scim('get', `/Users/${created.body.id as string}`).expect(200);
    expect(now.body.emails).toBeUndefined();
  });

  it('refuses it in a pushed snapshot, naming the path', async () => {
    const res = await bridge.admin('post', '/admin/sync').send({
      snapshot: { users: [{ id: fresh('u'), userName: 'x@example.com', emails: twoPrimaries }], groups: [] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual(['users[0].emails[1].primary: a second primary e-mail']);
  });
});
