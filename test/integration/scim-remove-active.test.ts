import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpServer } from '../../src/http/server.js';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { serveScim } from '../support/scim-fixture.js';

// Real: the whole bridge (startEngine: Redis, BullMQ workers) against the reference target over
// HTTP, with the SCIM router mounted on its store side, as an IdP reaches it. Issue 12, item 3:
// `PATCH {"op":"remove","path":"active"}` makes `active` unassigned (RFC 7644 §3.5.2.2), and an
// unassigned `active` leaves the platform's value alone — a disabled account stays disabled.

const TOKEN = 'remove-active-token-0123456789';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('remove active never enables', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let server: HttpServer;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const scim = () => request(server.url);
  const patch = (id: string, ...Operations: unknown[]) =>
    scim()
      .patch(`/scim/v2/Users/${id}`)
      .set(auth)
      .send({ schemas: [PATCH_OP], Operations });

  beforeEach(async () => {
    target = await startTarget();
    engine = await startEngine(target, { INBOUND_SCIM_TOKEN: TOKEN });
    const { store, config } = engine.bridge;
    server = await serveScim(store, config, TOKEN);
  });
  afterEach(async () => {
    await server.close(100);
    await engine.close();
    await target.close();
  });

  /** A user created disabled through SCIM, once the platform holds it (disabled). */
  async function disabledUser(userName: string): Promise<string> {
    const created = await scim()
      .post('/scim/v2/Users')
      .set(auth)
      .send({ schemas: [USER], userName, name: { givenName: 'Dora', familyName: 'Disabled' }, active: false })
      .expect(201);
    await engine.drain();
    expect(target.findUserByUserName(userName)).toMatchObject({ active: false });
    return created.body.id as string;
  }

  for (const platform of ['PATCH', 'PUT'] as const) {
    it(`leaves the platform account disabled (the platform takes ${platform})`, async () => {
      target.faults.setPatchSupported(platform === 'PATCH');
      const userName = `disabled-${platform.toLowerCase()}@example.com`;
      const id = await disabledUser(userName);
      // With another change in the same request, so that a reconcile surely runs and writes.
      const patched = await patch(
        id,
        { op: 'remove', path: 'active' },
        { op: 'replace', path: 'name.givenName', value: 'Dorothy' },
      ).expect(200);
      expect(patched.body).not.toHaveProperty('active');
      const read = await scim().get(`/scim/v2/Users/${id}`).set(auth).expect(200);
      expect(read.body).not.toHaveProperty('active');
      expect(read.body.name).toEqual({ givenName: 'Dorothy', familyName: 'Disabled' });
      await engine.drain();
      expect(target.findUserByUserName(userName)).toMatchObject({
        active: false,
        name: { givenName: 'Dorothy', familyName: 'Disabled' },
      });
    });
  }

  it('keeps active unassigned through a PUT that omits it, and assigns it again when told', async () => {
    const userName = 'unassigned@example.com';
    const id = await disabledUser(userName);
    await patch(id, { op: 'Remove', path: 'active' }).expect(200);
    const replaced = await scim()
      .put(`/scim/v2/Users/${id}`)
      .set(auth)
      .send({ schemas: [USER], userName, name: { givenName: 'Dora', familyName: 'Replaced' } })
      .expect(200);
    expect(replaced.body).not.toHaveProperty('active');
    const inactive = await scim()
      .get('/scim/v2/Users')
      .query({ filter: `userName eq "${userName}" and active pr` })
      .set(auth)
      .expect(200);
    expect(inactive.body.totalResults).toBe(0);
    await engine.drain();
    expect(target.findUserByUserName(userName)).toMatchObject({
      active: false,
      name: { familyName: 'Replaced' },
    });
    // Only an input that says `active: true` enables the account (SPEC §6).
    const enabled = await patch(id, { op: 'replace', path: 'active', value: 'True' }).expect(200);
    expect(enabled.body.active).toBe(true);
    await engine.drain();
    expect(target.findUserByUserName(userName)).toMatchObject({ active: true });
  });
});
