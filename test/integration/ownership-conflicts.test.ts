import { afterEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src/cli/admin-client.js';
import { conflictsCommand } from '../../src/cli/conflicts.command.js';
import {
  ADMIN_TOKEN,
  conflicts,
  directoryUser,
  scimUser,
  startInputs,
  trace,
  userEvent,
  type Inputs,
} from './ownership-fixture.js';

// Real: SCIM push, signed events and pushed directory snapshots into one bridge (Redis, its Lua
// batch, BullMQ workers, HTTP), the admin API and the CLI's code over HTTP, the reference target.
// The default DEPROVISION_LIMIT: a directory's sync never counts other inputs' users.
describe('one identity claimed by several inputs', () => {
  let inputs: Inputs;

  afterEach(async () => {
    await inputs?.close();
  });

  const accountsNamed = (userName: string) =>
    inputs.target.users().filter((u) => u.userName.toLowerCase() === userName.toLowerCase());

  async function cli(options: Parameters<typeof conflictsCommand>[1]) {
    const output: string[] = [];
    const client = new AdminClient({ url: inputs.engine.bridge.http.url, token: ADMIN_TOKEN });
    const code = await conflictsCommand({ client, write: (text) => output.push(text) }, options);
    return { code, text: output.join('\n') };
  }

  it('keeps one platform account for one userName and records one conflict per newcomer', async () => {
    inputs = await startInputs();
    const pushed = await inputs.scim('post', '/Users').send(scimUser('ada@example.com')).expect(201);
    const scimId = pushed.body.id as string;
    await inputs.engine.drain();
    const [account] = accountsNamed('ada@example.com');
    expect(account).toBeDefined();

    await inputs.events(userEvent('e-1', 'hr-ada', 'Ada@Example.com'));
    const sync = await inputs.directory({
      users: [directoryUser('dir-ada', 'ada@example.com'), directoryUser('dir-bob', 'bob@example.com')],
      groups: [],
    });
    expect(sync.state).toBe('completed');
    // Claimed again: the same conflict is seen again, no second row.
    await inputs.events(userEvent('e-2', 'hr-ada', 'ada@example.com', { active: false }));
    await inputs.engine.drain();

    expect(accountsNamed('ada@example.com')).toEqual([account]);
    expect(account?.active).toBe(true);
    await inputs.scim('get', `/Users/${scimId}`).expect(200);
    const open = await conflicts(inputs);
    expect(open.map((c) => [c.kind, c.claimant.owner, c.claimant.id, c.holder?.owner, c.holder?.id])).toEqual(
      expect.arrayContaining([
        ['account', 'events', 'hr-ada', 'scim', scimId],
        ['account', 'directory:directory', 'dir-ada', 'scim', scimId],
      ]),
    );
    expect(open).toHaveLength(2);
    expect(open.every((c) => c.account.targetId === account?.id && c.account.by === 'userName')).toBe(true);
    const parked = (await trace(inputs, 'users', 'hr-ada').expect(200)).body;
    expect(parked).toMatchObject({ status: 'parked', owner: 'events', managed: false, targetId: null });
    expect(parked.parked).toMatchObject({ kind: 'account', status: 'open', holder: { id: scimId } });
    const status = (await inputs.admin('get', '/admin/status').expect(200)).body;
    expect(status).toMatchObject({ conflicts: 2, owners: { scim: { users: 1 }, events: { users: 1 } } });
    const metrics = await inputs.http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/scim_bridge_conflicts\{kind="account"\} 2/);
    const listed = await cli({ limit: 100 });
    expect(listed.text).toContain(`events:hr-ada (ada@example.com)`);
    expect(listed.text).toContain(`scim:${scimId} (ada@example.com)`);
  });

  it('ignores one newcomer (parked, no longer reported) and links another (it takes the account)', async () => {
    inputs = await startInputs();
    const pushed = await inputs.scim('post', '/Users').send(scimUser('ada@example.com')).expect(201);
    const scimId = pushed.body.id as string;
    await inputs.engine.drain();
    const [account] = accountsNamed('ada@example.com');
    await inputs.events(userEvent('e-1', 'hr-ada', 'ada@example.com'));
    await inputs.directory({
      users: [directoryUser('dir-ada', 'ada@example.com'), directoryUser('dir-bob', 'bob@example.com')],
      groups: [],
    });
    await inputs.engine.drain();
    const open = await conflicts(inputs);
    const fromEvents = open.find((c) => c.claimant.owner === 'events');
    const fromDirectory = open.find((c) => c.claimant.owner === 'directory:directory');

    const ignored = await cli({ limit: 100, resolve: fromEvents?.id, ignore: true });
    expect(ignored.text).toContain('stays parked');
    await inputs
      .admin('post', `/admin/conflicts/${fromEvents?.id}/resolve`)
      .send({ action: 'ignore' })
      .expect(409);
    await inputs.events(userEvent('e-2', 'hr-ada', 'ada@example.com', { name: { givenName: 'Again' } }));
    expect((await conflicts(inputs)).map((c) => c.id)).toEqual([fromDirectory?.id]);
    expect((await conflicts(inputs, 'ignored')).map((c) => c.id)).toEqual([fromEvents?.id]);
    expect((await trace(inputs, 'users', 'hr-ada').expect(200)).body.status).toBe('parked');

    inputs.target.resetStats();
    const linked = await inputs
      .admin('post', `/admin/conflicts/${fromDirectory?.id}/resolve`)
      .send({ action: 'link' })
      .expect(200);
    expect(linked.body).toMatchObject({ status: 'linked', resolution: { action: 'link' } });
    await inputs.engine.drain();

    // The directory's user now owns the account: written with its desired state, never duplicated.
    expect(accountsNamed('ada@example.com')).toHaveLength(1);
    expect(inputs.target.getUser(account?.id ?? '')).toMatchObject({
      externalId: 'dir-ada',
      name: { givenName: 'Read', familyName: 'From Directory' },
      active: true,
    });
    expect(
      inputs.target.stats().requests.filter((r) => r.method === 'POST' || r.method === 'DELETE'),
    ).toEqual([]);
    expect((await trace(inputs, 'users', 'dir-ada').expect(200)).body).toMatchObject({
      status: 'in-sync',
      targetId: account?.id,
      owner: 'directory:directory',
    });
    // The former holder is parked, not deprovisioned, and still served to its IdP.
    const holder = (await trace(inputs, 'users', scimId).expect(200)).body;
    expect(holder).toMatchObject({ status: 'parked', managed: false, targetId: null, owner: 'scim' });
    expect(holder.parked).toMatchObject({ status: 'ignored', holder: { id: 'dir-ada' } });
    await inputs.scim('get', `/Users/${scimId}`).expect(200);
    await inputs
      .admin('post', `/admin/conflicts/${fromDirectory?.id}/resolve`)
      .send({ action: 'link' })
      .expect(409);
  });

  it('refuses an id another input owns: a same-id conflict that a link settles', async () => {
    inputs = await startInputs();
    await inputs.events(userEvent('e-1', 'hr-7', 'grace@example.com'));
    await inputs.engine.drain();
    const [account] = accountsNamed('grace@example.com');
    const sync = await inputs.directory({
      users: [directoryUser('hr-7', 'grace.hopper@example.com'), directoryUser('dir-bob', 'bob@example.com')],
      groups: [],
    });
    expect(sync.state).toBe('completed');
    await inputs.engine.drain();
    // Nothing of the directory's claim was applied: the events' user is as it was.
    expect(inputs.target.getUser(account?.id ?? '')).toMatchObject({ userName: 'grace@example.com' });
    const [claim] = await conflicts(inputs);
    expect(claim).toMatchObject({
      kind: 'same-id',
      claimant: { owner: 'directory:directory', id: 'hr-7', name: 'grace.hopper@example.com' },
      holder: { owner: 'events', id: 'hr-7', name: 'grace@example.com' },
      account: { targetId: account?.id, by: 'id' },
    });
    // A removal of another input's identity changes nothing and is noted in its history.
    await inputs.events({ id: 'e-2', type: 'user.deleted', data: { id: 'dir-bob' } });
    const bob = (await trace(inputs, 'users', 'dir-bob').expect(200)).body;
    expect(bob.desired).not.toBeNull();
    expect(bob.history[0]).toMatchObject({ type: 'signal', refused: 'owned-elsewhere', input: 'events' });

    await inputs.admin('post', `/admin/conflicts/${claim?.id}/resolve`).send({ action: 'link' }).expect(200);
    await inputs.engine.drain();
    expect(inputs.target.getUser(account?.id ?? '')).toMatchObject({ userName: 'grace.hopper@example.com' });
    expect((await trace(inputs, 'users', 'hr-7').expect(200)).body).toMatchObject({
      owner: 'directory:directory',
      status: 'in-sync',
    });
    // The events' next write of it is now a claim of their own.
    await inputs.events(userEvent('e-3', 'hr-7', 'grace@example.com'));
    expect((await conflicts(inputs)).map((c) => [c.kind, c.claimant.owner])).toEqual([['same-id', 'events']]);
  });

  it('parks an identity whose platform account another input manages, once, without retrying', async () => {
    inputs = await startInputs();
    // The events' user has no externalId of its own: on the platform it is its id, hr-z.
    await inputs.events(userEvent('e-1', 'hr-z', 'zoe@example.com'));
    await inputs.engine.drain();
    const [account] = accountsNamed('zoe@example.com');
    inputs.target.resetStats();
    // The IdP pushes Zoe under another userName, with hr-z as its externalId: the store sees no
    // clash, the reconciler finds hr-z's account by externalId.
    const pushed = await inputs
      .scim('post', '/Users')
      .send(scimUser('zoe.z@example.com', { externalId: 'hr-z' }))
      .expect(201);
    await inputs.engine.drain();
    expect(inputs.target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(inputs.target.users()).toHaveLength(1);
    const [claim] = await conflicts(inputs);
    expect(claim).toMatchObject({
      kind: 'account',
      claimant: { owner: 'scim', id: pushed.body.id },
      holder: { owner: 'events', id: 'hr-z' },
      account: { targetId: account?.id, by: 'externalId' },
    });
    const parked = (await trace(inputs, 'users', pushed.body.id).expect(200)).body;
    expect(parked).toMatchObject({ status: 'parked', lastResult: 'parked', failedAt: null });
    expect(parked.history.find((e: { type: string }) => e.type === 'decision')).toMatchObject({
      decision: 'parked',
      conflict: claim?.id,
      reason: 'account',
    });
    // Run again on demand, it does nothing: parked identities are never reconciled.
    inputs.target.resetStats();
    await inputs
      .admin('post', '/admin/failures/retry')
      .send({ keys: [`user:${pushed.body.id}`] })
      .expect(202);
    await inputs.engine.drain();
    expect(inputs.target.stats().total).toBe(0);
    expect((await conflicts(inputs)).map((c) => c.id)).toEqual([claim?.id]);
  });

  it('takes neither of two unmanaged accounts that fit one identity: an ambiguous conflict', async () => {
    inputs = await startInputs();
    const byExternalId = inputs.target.insertUser({
      userName: 'a.lovelace@example.com',
      externalId: 'ext-amb',
      active: true,
    });
    const byName = inputs.target.insertUser({ userName: 'ada.l@example.com', active: true });
    inputs.target.resetStats();
    await inputs.events(userEvent('e-1', 'hr-amb', 'ada.l@example.com', { externalId: 'ext-amb' }));
    await inputs.engine.drain();
    expect(inputs.target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    const [claim] = await conflicts(inputs);
    expect(claim).toMatchObject({ kind: 'ambiguous', claimant: { owner: 'events', id: 'hr-amb' } });
    expect(claim?.account.candidates).toEqual([
      { targetId: byExternalId.id, by: 'externalId', name: 'a.lovelace@example.com' },
      { targetId: byName.id, by: 'userName', name: 'ada.l@example.com' },
    ]);
    expect((await trace(inputs, 'users', 'hr-amb').expect(200)).body.status).toBe('parked');

    const resolve = () => inputs.admin('post', `/admin/conflicts/${claim?.id}/resolve`);
    expect((await resolve().send({ action: 'link' }).expect(400)).body.error.problems).toEqual([
      `targetId: one of ${byExternalId.id}, ${byName.id}`,
    ]);
    await resolve().send({ action: 'link', targetId: 'not-a-candidate' }).expect(400);
    await resolve().send({ action: 'maybe' }).expect(400);
    await inputs
      .admin('post', '/admin/conflicts/c00000000000000000000/resolve')
      .send({ action: 'link' })
      .expect(404);
    await inputs.admin('post', '/admin/conflicts/../status/resolve').send({ action: 'link' }).expect(404);
    const linked = await cli({ limit: 100, resolve: claim?.id, link: true, target: byName.id });
    expect(linked.text).toContain(`now owns platform account ${byName.id}`);
    await inputs.engine.drain();
    expect(inputs.target.getUser(byName.id)).toMatchObject({
      externalId: 'ext-amb',
      userName: 'ada.l@example.com',
    });
    expect(inputs.target.getUser(byExternalId.id)).toEqual(byExternalId);
    expect(inputs.target.users()).toHaveLength(2);
  });
});
