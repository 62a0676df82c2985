import { afterEach, describe, expect, it } from 'vitest';
import {
  conflicts,
  directoryUser,
  scimUser,
  startInputs,
  trace,
  userEvent,
  type Inputs,
  type SyncView,
} from './ownership-fixture.js';

// Real: SCIM push, signed events and pushed directory snapshots into one bridge (Redis, BullMQ
// workers, HTTP), the admin API over HTTP, the reference target. The default DEPROVISION_LIMIT
// (500,20%) and SOURCE_SHRINK_LIMIT (30%) throughout.
describe('a full sync replaces only what its directory owns', () => {
  let inputs: Inputs;

  afterEach(async () => {
    await inputs?.close();
  });

  const directory = (count: number) => ({
    users: Array.from({ length: count }, (_, n) => directoryUser(`dir-${n + 1}`, `dir${n + 1}@example.com`)),
    groups: [{ id: 'g-dir', displayName: 'Directory Group', members: ['dir-1'] }],
  });
  const plan = (view: SyncView) => view.plan as Record<string, unknown>;
  const account = (userName: string) => inputs.target.users().find((u) => u.userName === userName);

  it('leaves SCIM-pushed and event-fed users alone, counts them ownedElsewhere, never against the limit', async () => {
    inputs = await startInputs();
    const pushed: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const res = await inputs
        .scim('post', '/Users')
        .send(scimUser(`sam${n}@example.com`))
        .expect(201);
      pushed.push(res.body.id as string);
    }
    await inputs
      .scim('post', '/Groups')
      .send({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: 'Pushed Group',
        members: [{ value: pushed[0] }],
      })
      .expect(201);
    await inputs.events(userEvent('e-1', 'hr-1', 'hal@example.com'));
    await inputs.engine.drain();

    const first = await inputs.directory(directory(5));
    expect(first.state).toBe('completed');
    expect(plan(first)).toMatchObject({
      deprovision: 0,
      users: { create: 5, deprovision: 0 },
      groups: { create: 1, deprovision: 0 },
      ownedElsewhere: {
        users: 6,
        groups: 1,
        owners: { scim: { users: 5, groups: 1 }, events: { users: 1, groups: 0 } },
        refused: { users: 0, groups: 0 },
      },
      source: { name: 'snapshot', users: 5, owner: 'directory:directory' },
    });
    await inputs.engine.drain();

    // The directory drops one user: its share of DEPROVISION_LIMIT is of its own 5 managed users
    // (20%: 1), and its shrink is measured against its own last sync (5 → 4: 20%, under 30%).
    const second = await inputs.directory(directory(4));
    expect(second.state).toBe('completed');
    expect(plan(second)).toMatchObject({
      deprovisionLimit: 1,
      held: false,
      users: { deprovision: 1 },
      removals: { users: { total: 1, sample: [{ id: 'dir-5', userName: 'dir5@example.com' }] } },
      source: { users: 4, last: { jobId: first.jobId, users: 5 }, shrunkByPercent: 20 },
      ownedElsewhere: { users: 6, groups: 1 },
    });
    await inputs.engine.drain();

    expect(account('dir5@example.com')?.active).toBe(false);
    for (let n = 1; n <= 5; n++) expect(account(`sam${n}@example.com`)?.active, `sam${n}`).toBe(true);
    expect(account('hal@example.com')?.active).toBe(true);
    expect(
      inputs.target
        .groups()
        .map((g) => g.displayName)
        .sort(),
    ).toEqual(['Directory Group', 'Pushed Group']);
    const served = (await inputs.scim('get', '/Users').expect(200)).body;
    expect(served.totalResults).toBe(5);
    for (const id of pushed) await inputs.scim('get', `/Users/${id}`).expect(200);

    // The sync detail lists them, named, with their owners.
    const listed = await inputs
      .admin('get', `/admin/sync/${second.jobId}/changes?action=ownedElsewhere&limit=100`)
      .expect(200);
    expect(listed.body).toMatchObject({ action: 'ownedElsewhere', total: 7, recorded: 7 });
    expect(listed.body.totals).toMatchObject({ ownedElsewhere: 7, deprovision: 1 });
    const names = (listed.body.items as { userName?: string; displayName?: string; owner: string }[]).map(
      (item) => `${item.owner} ${item.userName ?? item.displayName}`,
    );
    expect(names.sort()).toEqual([
      'events hal@example.com',
      'scim Pushed Group',
      ...pushed.map((_, n) => `scim sam${n + 1}@example.com`),
    ]);
  });

  it('takes a group member pushed by the IdP; refuses a member that exists nowhere', async () => {
    inputs = await startInputs();
    const sam = (await inputs.scim('post', '/Users').send(scimUser('sam@example.com')).expect(201)).body;
    await inputs.events(userEvent('e-1', 'hr-1', 'hal@example.com'));
    await inputs.engine.drain();
    const snapshot = {
      users: [directoryUser('dir-1', 'dora@example.com')],
      groups: [{ id: 'g-mixed', displayName: 'Mixed', members: ['dir-1', sam.id, 'hr-1'] }],
    };
    expect((await inputs.directory(snapshot)).state).toBe('completed');
    await inputs.engine.drain();
    const group = inputs.target.groups().find((g) => g.displayName === 'Mixed');
    const expected = ['dora@example.com', 'sam@example.com', 'hal@example.com'].map((u) => account(u)?.id);
    expect(group?.members?.map((m) => m.value).sort()).toEqual(expected.sort());

    // Planned again: nothing to change, no member to take out.
    const again = await inputs.directory(snapshot);
    expect(plan(again)).toMatchObject({
      groups: { unchanged: 1, update: 0 },
      removals: { memberships: { total: 0 } },
    });

    const refused = await inputs
      .admin('post', '/admin/sync')
      .send({ snapshot: { ...snapshot, groups: [{ ...snapshot.groups[0], members: ['dir-1', 'nobody'] }] } })
      .expect(400);
    expect(refused.body.error.problems).toEqual([
      'groups[0].members[1]: unknown user "nobody": in neither the snapshot nor another input',
    ]);
  });

  it("never adopts another input's platform account, nor writes an id another input owns", async () => {
    inputs = await startInputs();
    await inputs
      .scim('post', '/Users')
      .send(scimUser('sam@example.com', { externalId: 'entra-1' }))
      .expect(201);
    await inputs.scim('post', '/Users').send(scimUser('tom@example.com')).expect(201);
    await inputs.events(userEvent('e-1', 'hr-1', 'hal@example.com'));
    await inputs.engine.drain();
    const samAccount = account('sam@example.com');
    // Renamed on the platform since: only the listing says that tom's account is now "tim".
    const tomAccount = inputs.target.updateUser(account('tom@example.com')?.id ?? '', {
      userName: 'tim@example.com',
    });

    // dir-9 holds the IdP's userName; dir-8 fits the IdP's account on the platform; hr-1 is an id
    // the events own.
    const view = await inputs.directory({
      users: [
        directoryUser('dir-9', 'sam@example.com'),
        directoryUser('dir-8', 'tim@example.com'),
        directoryUser('hr-1', 'hr-one@example.com'),
      ],
      groups: [],
    });
    expect(view.state).toBe('completed');
    expect(plan(view)).toMatchObject({
      users: { create: 0, update: 0, unchanged: 0, deprovision: 0 },
      ownedElsewhere: { users: 3, refused: { users: 3, groups: 0 } },
    });
    await inputs.engine.drain();
    expect(inputs.target.users().filter((u) => u.userName === 'sam@example.com')).toEqual([samAccount]);
    expect(account('tim@example.com')).toEqual(tomAccount);
    expect(account('hr-one@example.com')).toBeUndefined();
    expect(account('hal@example.com')?.active).toBe(true);
    for (const id of ['dir-9', 'dir-8'])
      expect((await trace(inputs, 'users', id).expect(200)).body.status, id).toBe('parked');
    const open = await conflicts(inputs);
    const seen = open.map((c) => `${c.kind} ${c.claimant.owner}:${c.claimant.id} ${c.holder?.owner}`);
    expect(seen.sort()).toEqual([
      'account directory:directory:dir-8 scim',
      'account directory:directory:dir-9 scim',
      'same-id directory:directory:hr-1 events',
    ]);
    expect(open.find((c) => c.claimant.id === 'dir-8')?.account).toMatchObject({
      targetId: tomAccount.id,
      by: 'userName',
    });
    const listed = await inputs
      .admin('get', `/admin/sync/${view.jobId}/changes?action=ownedElsewhere`)
      .expect(200);
    expect(listed.body.items.filter((i: { refused?: string }) => i.refused)).toEqual([
      expect.objectContaining({ id: 'dir-9', refused: 'account', owner: 'scim' }),
      expect.objectContaining({ id: 'dir-8', refused: 'account', targetId: tomAccount.id }),
      expect.objectContaining({ id: 'hr-1', refused: 'same-id', owner: 'events' }),
    ]);
  });

  it("gives another input's group the members a directory sync just created or adopted", async () => {
    inputs = await startInputs();
    await inputs.events(userEvent('e-1', 'hr-1', 'hal@example.com'));
    const group = { id: 'g-ev', displayName: 'Events Team', members: ['hr-1', 'dir-1', 'dir-2'] };
    await inputs.events({ id: 'e-2', type: 'group.upserted', data: group });
    // dir-2's account exists already: the sync adopts it; dir-1 it creates.
    inputs.target.insertUser({ userName: 'dir2@example.com', externalId: 'dir-2', active: true });
    await inputs.engine.drain();
    const members = () => {
      const held = inputs.target.groups().find((g) => g.displayName === 'Events Team')?.members ?? [];
      return held.map((m) => inputs.target.users().find((u) => u.id === m.value)?.userName).sort();
    };
    expect(members()).toEqual(['hal@example.com']);
    const view = await inputs.directory({
      users: [directoryUser('dir-1', 'dir1@example.com'), directoryUser('dir-2', 'dir2@example.com')],
      groups: [],
    });
    expect(view.state).toBe('completed');
    await inputs.engine.drain();
    expect(members()).toEqual(['dir1@example.com', 'dir2@example.com', 'hal@example.com']);
    // Once right, a group of another input costs no request at the next sync.
    inputs.target.resetStats();
    await inputs.directory({
      users: [directoryUser('dir-1', 'dir1@example.com'), directoryUser('dir-2', 'dir2@example.com')],
      groups: [],
    });
    await inputs.engine.drain();
    expect(Object.keys(inputs.target.stats({ limit: 0 }).byMethod)).toEqual(['GET']);
  });
});
