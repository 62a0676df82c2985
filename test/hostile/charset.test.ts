import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fresh,
  SCIM_TOKEN,
  startHostileBridge,
  userEvent,
  USER_SCHEMA,
  type HostileBridge,
} from './bridge-fixture.js';

// Real: the whole bridge (Redis, HTTP, every body parser). UTF-7 turns `+ADw-` into `<`: a body
// that declares any charset but UTF-8 is refused before it is decoded, on every route.
describe('only UTF-8 bodies', () => {
  let bridge: HostileBridge;
  const utf7 = (type: string) => `${type}; charset=utf-7`;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('refuses charset=utf-7 with 415 on the SCIM server, the webhooks and the admin API, changing nothing', async () => {
    const userName = `${fresh('u')}+ADw-script+AD4-@example.com`;
    const scim = await bridge
      .scim('post', '/Users')
      .set('Content-Type', utf7('application/scim+json'))
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName }));
    expect(scim.status).toBe(415);
    expect(scim.body).toMatchObject({ status: '415', detail: expect.stringContaining('"utf-7"') });
    const event = userEvent(fresh('e'), fresh('u'), { userName });
    const events = await bridge.signed(event, utf7('application/json'));
    expect(events.status).toBe(415);
    expect(events.body.error.code).toBe('unsupported_media_type');
    const okta = await bridge.okta({ data: { events: [] } }, utf7('application/json'));
    expect(okta.status).toBe(415);
    const sync = await bridge
      .admin('post', '/admin/sync')
      .set('Content-Type', utf7('application/json'))
      .send('{"dryRun":true}');
    expect(sync.status).toBe(415);
    const retry = await bridge
      .admin('post', '/admin/failures/retry')
      .set('Content-Type', 'application/json; charset=iso-8859-1')
      .send('{"all":true}');
    expect(retry.status).toBe(415);
    expect(await bridge.engine.bridge.store.desired.getUser(event.data.id)).toBeUndefined();
    expect(await bridge.engine.bridge.store.syncs.records.activeSyncId()).toBeUndefined();
  });

  it('refuses it on routes without a parser of their own too (the queue board)', async () => {
    const res = await bridge
      .admin('post', '/admin/queues/api/queues/reconcile/retry/failed')
      .set('Content-Type', utf7('application/json'))
      .send('{}');
    expect(res.status).toBe(415);
  });

  it('accepts UTF-8 however it is spelt, and refuses bytes that are not UTF-8 with 400', async () => {
    for (const type of [
      'application/json; charset=UTF-8',
      'application/json; charset="utf8"',
      'application/json',
    ]) {
      const res = await bridge.signed(
        userEvent(fresh('e'), fresh('u'), { name: { givenName: 'Zoë' } }),
        type,
      );
      expect([type, res.status]).toEqual([type, 202]);
    }
    const latin1 = Buffer.from(
      JSON.stringify({ schemas: [USER_SCHEMA], userName: 'zoe@example.com', displayName: 'Zo\u00eb' }),
      'latin1',
    );
    // Sent as bytes (supertest would serialise a Buffer as JSON).
    const scim = await fetch(`${bridge.engine.bridge.http.url}/scim/v2/Users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SCIM_TOKEN}`, 'Content-Type': 'application/scim+json' },
      body: latin1,
    });
    expect(scim.status).toBe(400);
    expect(((await scim.json()) as { detail: string }).detail).toBe('The body is not valid UTF-8');
  });
});
