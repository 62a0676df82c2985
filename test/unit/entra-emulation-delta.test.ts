import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entraFetch, type Json } from '../support/entra/entra-fetch.js';
import { startEntraGraph, type EntraGraphServer } from '../support/entra-graph.js';

// The Entra emulation's delta query (user-delta.md, group-delta.md, delta-query-overview.md,
// delta-query-groups.md), over real HTTP. No part of the bridge is used.

const DAY = 86_400_000;

describe('the Entra emulation’s delta query', () => {
  let entra: EntraGraphServer;
  const { tokenFor, get, round } = entraFetch(() => entra);
  const user = (n: number, extra: Record<string, unknown> = {}) =>
    entra.createUser({
      userPrincipalName: `user${n}@contoso.onmicrosoft.com`,
      displayName: `User ${n}`,
      ...extra,
    });

  beforeEach(async () => {
    entra = await startEntraGraph();
  });
  afterEach(async () => {
    await entra.close();
  });

  it('runs a users delta: every object first, then the changed ones (all selected or, minimal, only changed properties)', async () => {
    const token = await tokenFor('User.Read.All');
    entra.setDeltaPaging({ objectsPerPage: 2 });
    const users = [1, 2, 3, 4, 5].map((n) => user(n));
    const initial = await round('/v1.0/users/delta?$select=displayName,accountEnabled,mail', token);
    expect(initial.pages.length).toBeGreaterThan(2);
    expect(initial.items.map((u) => u.id).sort()).toEqual(users.map((u) => u.id).sort());
    expect(initial.items[0]).not.toHaveProperty('mail');
    entra.updateUser(users[0]!.id, { accountEnabled: false });
    entra.updateUser(users[1]!.id, { jobTitle: 'not selected' });
    const changed = await round(initial.deltaLink, token);
    expect(changed.items).toEqual([{ displayName: 'User 1', accountEnabled: false, id: users[0]!.id }]);
    entra.updateUser(users[2]!.id, { displayName: 'Renamed' });
    const minimal = await round(changed.deltaLink, token, { Prefer: 'return=minimal' });
    expect(minimal.items).toEqual([{ displayName: 'Renamed', id: users[2]!.id }]);
    entra.deleteUser(users[3]!.id);
    entra.purgeUser(users[4]!.id);
    const removed = await round(minimal.deltaLink, token);
    expect(removed.items).toEqual([
      { id: users[3]!.id, '@removed': { reason: 'changed' } },
      { id: users[4]!.id, '@removed': { reason: 'deleted' } },
    ]);
    entra.updateUser(users[0]!.id, { displayName: 'First' });
    const reselected = await round(`${removed.deltaLink}&$select=userPrincipalName`, token);
    expect(reselected.items).toEqual([{ displayName: 'First', accountEnabled: false, id: users[0]!.id }]);
    const latest = await get('/v1.0/users/delta?$deltatoken=latest', token);
    expect(latest.body).toMatchObject({ value: [] });
    expect(latest.body['@odata.deltaLink']).toBeDefined();
  });

  it('runs a groups delta: members@delta split across pages with the group repeated, removals, no transitive change', async () => {
    const token = await tokenFor('GroupMember.Read.All');
    entra.setDeltaPaging({ membersPerPage: 3 });
    const parent = entra.createGroup({ displayName: 'Parent' });
    const child = entra.createGroup({ displayName: 'Child' });
    entra.addMember(parent.id, child.id);
    const people = [1, 2, 3, 4, 5, 6].map((n) => user(n));
    for (const person of people) entra.addMember(parent.id, person.id);
    const initial = await round('/v1.0/groups/delta?$select=displayName,members', token);
    const chunks = initial.items.filter((g) => g.id === parent.id);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((g) => g.displayName === 'Parent')).toBe(true);
    const refs = chunks.flatMap((g) => g['members@delta'] as Json[]);
    expect(refs.map((r) => r.id).sort()).toEqual([child.id, ...people.map((p) => p.id)].sort());
    expect(refs.find((r) => r.id === child.id)).toEqual({
      '@odata.type': '#microsoft.graph.group',
      id: child.id,
    });
    entra.addMember(child.id, people[0]!.id);
    entra.removeMember(parent.id, people[1]!.id);
    entra.deleteUser(people[2]!.id);
    const next = await round(initial.deltaLink, token);
    expect(next.items).toEqual(
      expect.arrayContaining([
        {
          displayName: 'Child',
          id: child.id,
          'members@delta': [{ '@odata.type': '#microsoft.graph.user', id: people[0]!.id }],
        },
        {
          displayName: 'Parent',
          id: parent.id,
          'members@delta': [
            { '@odata.type': '#microsoft.graph.user', id: people[1]!.id, '@removed': { reason: 'deleted' } },
          ],
        },
      ]),
    );
    expect(next.items).toHaveLength(2);
    entra.purgeUser(people[2]!.id);
    const purged = await round(next.deltaLink, token);
    expect(purged.items).toEqual([
      {
        displayName: 'Parent',
        id: parent.id,
        'members@delta': [
          { '@odata.type': '#microsoft.graph.user', id: people[2]!.id, '@removed': { reason: 'deleted' } },
        ],
      },
    ]);
  });

  it('refuses $top, $orderby, $expand and any $filter but id eq (50 at most) on delta', async () => {
    const token = await tokenFor('User.Read.All');
    for (const query of [
      '$top=10',
      '$orderby=displayName',
      '$expand=manager',
      `$filter=${encodeURIComponent("displayName eq 'x'")}`,
    ]) {
      expect((await get(`/v1.0/users/delta?${query}`, token)).status).toBe(400);
    }
    const ids = Array.from({ length: 51 }, () => `id eq '${randomUUID()}'`).join(' or ');
    expect((await get(`/v1.0/users/delta?$filter=${encodeURIComponent(ids)}`, token)).status).toBe(400);
    const one = user(1);
    user(2);
    const filtered = await round(
      `/v1.0/users/delta?$filter=${encodeURIComponent(`id eq '${one.id}'`)}`,
      token,
    );
    expect(filtered.items.map((u) => u.id)).toEqual([one.id]);
  });

  it('expires delta links after 7 days (syncStateNotFound) and fails them on demand with 410 Gone or resyncRequired', async () => {
    const token = await tokenFor('User.Read.All');
    user(1);
    const { deltaLink } = await round('/v1.0/users/delta?$select=displayName', token);
    entra.failDeltaLinks({ status: 410 });
    const gone = await get(deltaLink, token);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('location')).toBe(
      `${entra.graphUrl}/v1.0/users/delta?$select=displayName&$deltatoken=`,
    );
    const restarted = await round(gone.headers.get('location') as string, token);
    expect(restarted.items).toHaveLength(1);
    entra.failDeltaLinks({ status: 400, code: 'resyncRequired' });
    expect((await get(deltaLink, token)).body).toMatchObject({ error: { code: 'resyncRequired' } });
    expect((await get(deltaLink, token)).status).toBe(200);
    entra.clock.advance(7 * DAY + 1);
    const expired = await get(deltaLink, await tokenFor('User.Read.All'));
    expect(expired).toMatchObject({ status: 400, body: { error: { code: 'syncStateNotFound' } } });
  });

  it('replays, duplicates and reorders delta items when told to', async () => {
    const token = await tokenFor('User.Read.All');
    const people = [1, 2, 3].map((n) => user(n));
    entra.setDeltaChaos({ duplicates: 1, replay: 1 });
    const first = await round('/v1.0/users/delta?$select=displayName', token);
    expect(first.items).toHaveLength(6);
    entra.updateUser(people[0]!.id, { displayName: 'Changed' });
    const second = await round(first.deltaLink, token);
    entra.setDeltaChaos({});
    const third = await round(second.deltaLink, token);
    expect(third.items).toEqual([{ displayName: 'Changed', id: people[0]!.id }]);
  });
});
