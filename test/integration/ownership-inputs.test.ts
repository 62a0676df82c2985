import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { AdminClient } from '../../src/cli/admin-client.js';
import { explainCommand } from '../../src/cli/explain.command.js';
import { startTarget } from '../support/engine.js';
import {
  ADMIN_TOKEN,
  conflicts,
  directoryUser,
  scimUser,
  startInputs,
  trace,
  userEvent,
  USER_SCHEMA,
  type Inputs,
} from './ownership-fixture.js';

// Real: SCIM push, signed events and pushed directory snapshots into one bridge (Redis, BullMQ
// workers, HTTP), a second bridge on the same Redis keys after the first one stopped, the CLI's
// explain over HTTP, the reference target, the default DEPROVISION_LIMIT (a directory's sync never
// counts other inputs' users).
describe('each input keeps to its own', () => {
  const running: Inputs[] = [];
  let target: ReferenceTarget | undefined;

  afterEach(async () => {
    for (const inputs of running.splice(0)) await inputs.close();
    await target?.close();
    target = undefined;
  });

  async function start(env: Record<string, string> = {}): Promise<Inputs> {
    target ??= await startTarget();
    const inputs = await startInputs(env, target);
    running.push(inputs);
    return inputs;
  }

  const snapshot = () => ({
    users: [directoryUser('dir-1', 'dora@example.com'), directoryUser('dir-2', 'dan@example.com')],
    groups: [{ id: 'g-dir', displayName: 'Directory Group', members: ['dir-1'] }],
  });

  it('shows the IdP only what it pushed, and stores a clashing create parked (201)', async () => {
    const inputs = await start();
    await inputs.directory(snapshot());
    await inputs.events(userEvent('e-1', 'hr-1', 'hal@example.com'));
    const sam = (await inputs.scim('post', '/Users').send(scimUser('sam@example.com')).expect(201)).body;

    const list = (await inputs.scim('get', '/Users').expect(200)).body;
    expect(list).toMatchObject({ totalResults: 1, Resources: [{ id: sam.id }] });
    await inputs.scim('get', '/Users/dir-1').expect(404);
    await inputs.scim('get', '/Users/hr-1').expect(404);
    const filtered = await inputs
      .scim('get', '/Users?filter=userName%20eq%20%22dora@example.com%22')
      .expect(200);
    expect(filtered.body.totalResults).toBe(0);
    const searched = await inputs
      .scim('post', '/.search')
      .send({ schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], filter: 'userName sw "ha"' })
      .expect(200);
    expect(searched.body.totalResults).toBe(0);
    expect((await inputs.scim('get', '/Groups').expect(200)).body.totalResults).toBe(0);
    await inputs.scim('get', '/Groups/g-dir').expect(404);
    await inputs.scim('put', '/Users/dir-1').send(scimUser('dora@example.com')).expect(404);
    await inputs
      .scim('patch', '/Users/dir-1')
      .send({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      })
      .expect(404);
    await inputs.scim('delete', '/Users/dir-1').expect(404);
    await inputs.scim('delete', '/Groups/g-dir').expect(404);
    expect((await trace(inputs, 'users', 'dir-1').expect(200)).body.desired).toMatchObject({ active: true });

    // The IdP creates a user whose userName the directory holds: 201, served as usual, parked.
    const clash = await inputs.scim('post', '/Users').send(scimUser('Dora@example.com')).expect(201);
    await inputs.scim('get', `/Users/${clash.body.id}`).expect(200);
    const found = await inputs
      .scim('get', '/Users?filter=userName%20eq%20%22dora@example.com%22')
      .expect(200);
    expect(found.body.Resources.map((u: { id: string }) => u.id)).toEqual([clash.body.id]);
    expect((await trace(inputs, 'users', clash.body.id).expect(200)).body.status).toBe('parked');
    expect(await conflicts(inputs)).toMatchObject([
      {
        claimant: { owner: 'scim', id: clash.body.id },
        holder: { owner: 'directory:directory', id: 'dir-1' },
      },
    ]);
    // Among the IdP's own users, a userName stays unique (409).
    await inputs.scim('post', '/Users').send(scimUser('dora@example.com')).expect(409);
    await inputs.scim('post', '/Users').send(scimUser('SAM@example.com')).expect(409);

    // Another input's group may hold the IdP's user; the IdP does not see that group.
    await inputs.events({
      id: 'e-2',
      type: 'group.upserted',
      data: { id: 'g-hr', displayName: 'HR Group', members: [sam.id, 'hr-1'] },
    });
    await inputs.engine.drain();
    const samAccount = inputs.target.users().find((u) => u.userName === 'sam@example.com');
    const group = inputs.target.groups().find((g) => g.displayName === 'HR Group');
    expect(group?.members?.map((m) => m.value)).toContain(samAccount?.id);
    const samAgain = await inputs.scim('get', `/Users/${sam.id}?attributes=groups`).expect(200);
    expect(samAgain.body.groups ?? []).toEqual([]);
    expect(inputs.target.users().filter((u) => u.userName.toLowerCase() === 'dora@example.com')).toHaveLength(
      1,
    );
  });

  it('keeps SCIM-pushed and event-fed users through full syncs and a restart', async () => {
    const first = await start();
    const sam = (
      await first
        .scim('post', '/Users')
        .send(scimUser('sam@example.com', { externalId: 'entra-object-1' }))
        .expect(201)
    ).body;
    await first.events(userEvent('e-1', 'hr-1', 'hal@example.com'));
    await first.engine.drain();
    expect((await first.directory(snapshot())).state).toBe('completed');
    await first.engine.drain();

    const active = (userName: string) => target?.users().find((u) => u.userName === userName)?.active;
    expect([active('sam@example.com'), active('hal@example.com'), active('dora@example.com')]).toEqual([
      true,
      true,
      true,
    ]);
    await first.scim('get', `/Users/${sam.id}`).expect(200);

    // Stopped, and a new bridge started on the same Redis keys.
    const prefix = first.engine.bridge.config.redis.keyPrefix;
    await first.engine.bridge.close();
    running.splice(running.indexOf(first), 1);
    const second = await start({ KEY_PREFIX: prefix });
    const owners = await Promise.all(
      [sam.id as string, 'hr-1', 'dir-1'].map(
        async (id) => (await trace(second, 'users', id).expect(200)).body.owner,
      ),
    );
    expect(owners).toEqual(['scim', 'events', 'directory:directory']);
    expect((await second.directory(snapshot())).state).toBe('completed');
    await second.engine.drain();
    expect([active('sam@example.com'), active('hal@example.com')]).toEqual([true, true]);
    const served = (await second.scim('get', '/Users').expect(200)).body;
    expect(served.Resources.map((u: { id: string; schemas: string[] }) => u.id)).toEqual([sam.id]);
    expect(served.Resources[0].schemas).toContain(USER_SCHEMA);
    expect(await conflicts(second)).toEqual([]);

    // explain finds the SCIM-pushed user by the IdP's externalId and by its platform id.
    const output: string[] = [];
    const client = new AdminClient({ url: second.engine.bridge.http.url, token: ADMIN_TOKEN });
    const context = { client, write: (text: string) => output.push(text) };
    await explainCommand(context, 'user', 'entra-object-1');
    const platformId = target?.users().find((u) => u.userName === 'sam@example.com')?.id ?? '';
    await explainCommand(context, 'user', platformId);
    expect(output[0]).toMatch(new RegExp(`^user:${sam.id}: in-sync \\(found by externalId\\)`));
    expect(output[0]).toMatch(/owner:\s+scim/);
    expect(output[1]).toMatch(new RegExp(`^user:${sam.id}: in-sync \\(found by targetId\\)`));
  });
});
