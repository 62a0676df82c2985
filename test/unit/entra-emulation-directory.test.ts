import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entraFetch, type Json } from '../support/entra/entra-fetch.js';
import { startEntraGraph, type EntraGraphServer } from '../support/entra-graph.js';

// The Entra emulation's directory over Graph v1.0 — single reads, member types, app role
// assignments, tenants, the scale fixture — over real HTTP. No part of the bridge is used.

describe('the Entra emulation’s directory', () => {
  let entra: EntraGraphServer;
  const { tokenFor, get } = entraFetch(() => entra);
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

  it('reads a user by id or by an #EXT# userPrincipalName, and never a soft-deleted one', async () => {
    const token = await tokenFor('User.Read.All');
    const guest = user(1, {
      userPrincipalName: 'ann_partner.example#EXT#@contoso.onmicrosoft.com',
      userType: 'Guest',
    });
    const upn = encodeURIComponent('ann_partner.example#EXT#@contoso.onmicrosoft.com');
    expect((await get(`/v1.0/users/${upn}`, token)).body).toMatchObject({ id: guest.id });
    expect((await get('/v1.0/users/ann_partner.example#EXT#@contoso.onmicrosoft.com', token)).status).toBe(
      404,
    );
    entra.deleteUser(guest.id);
    expect((await get(`/v1.0/users/${guest.id}`, token)).body).toMatchObject({
      error: { code: 'Request_ResourceNotFound' },
    });
  });

  it('seeds a nested directory with a cycle, guests, users without mail and a group over one member page', async () => {
    const token = await tokenFor('User.Read.All', 'GroupMember.Read.All');
    const fixture = entra.seedScale({ users: 1_200, groups: 40, bigGroupMembers: 1_100 });
    expect(entra.members(fixture.cycle[0])).toContain(fixture.cycle[1]);
    const big = await get(`/v1.0/groups/${fixture.bigGroupId}/members?$select=id&$top=999`, token);
    expect(big.body.value).toHaveLength(999);
    expect(big.body['@odata.nextLink']).toBeDefined();
    const guest = entra.object(fixture.guestIds[0] as string);
    expect(guest?.userPrincipalName).toMatch(/#EXT#@/);
    const users = await get('/v1.0/users?$select=mail&$top=999', token);
    expect(users.body.value?.filter((u) => u.mail === null).length).toBeGreaterThan(0);
  });

  it('lists every member type with its @odata.type, and the users and groups assigned to an enterprise app', async () => {
    const token = await tokenFor(
      'GroupMember.Read.All',
      'User.Read.All',
      'Application.Read.All',
      'Device.Read.All',
    );
    const group = entra.createGroup({ displayName: 'Mixed' });
    const child = entra.createGroup({ displayName: 'Child' });
    const member = user(1);
    const device = entra.createObject('device', { displayName: 'Kiosk' });
    const contact = entra.createObject('orgContact', { displayName: 'Supplier' });
    for (const id of [member.id, child.id, device.id, contact.id]) entra.addMember(group.id, id);
    const members = await get(`/v1.0/groups/${group.id}/members?$select=id,displayName`, token);
    expect(members.body['@odata.context']).toBe(
      `${entra.graphUrl}/v1.0/$metadata#directoryObjects(id,displayName)`,
    );
    expect(members.body.value?.map((m) => [m['@odata.type'], m.displayName])).toEqual([
      ['#microsoft.graph.user', 'User 1'],
      ['#microsoft.graph.group', 'Child'],
      ['#microsoft.graph.device', 'Kiosk'],
      ['#microsoft.graph.orgContact', null],
    ]);
    const app = entra.createApp({ displayName: 'Data platform' });
    entra.assign(app.servicePrincipalId, member.id);
    entra.assign(app.servicePrincipalId, group.id);
    const assigned = await get(`/v1.0/servicePrincipals/${app.servicePrincipalId}/appRoleAssignedTo`, token);
    expect(assigned.body.value?.map((a) => [a.principalType, a.principalId, a.resourceDisplayName])).toEqual([
      ['User', member.id, 'Data platform'],
      ['Group', group.id, 'Data platform'],
    ]);
    const byAppId = await get(
      `/v1.0/servicePrincipals(appId='${app.clientId}')/appRoleAssignedTo?$select=principalId`,
      token,
    );
    expect(byAppId.body.value).toEqual([{ principalId: member.id }, { principalId: group.id }]);
    entra.deleteUser(member.id);
    const after = await get(`/v1.0/servicePrincipals/${app.servicePrincipalId}/appRoleAssignedTo`, token);
    expect(after.body.value?.map((a) => a.principalId)).toEqual([group.id]);
  });

  it("lists a user's or a group's groups through nesting (transitiveMemberOf), each once, cycles ended", async () => {
    const token = await tokenFor('User.Read.All', 'GroupMember.Read.All');
    const ann = user(1);
    const [a, b, c] = ['A', 'B', 'C'].map((name) => entra.createGroup({ displayName: name }).id) as [
      string,
      string,
      string,
    ];
    entra.addMember(c, ann.id);
    entra.addMember(b, c);
    entra.addMember(a, b);
    entra.addMember(c, a); // a cycle
    const of = async (path: string, t = token) =>
      (await get(`/v1.0/${path}/transitiveMemberOf?$select=id,displayName`, t)).body.value;
    expect(await of(`users/${ann.id}`)).toEqual([
      { '@odata.type': '#microsoft.graph.group', id: c, displayName: 'C' },
      { '@odata.type': '#microsoft.graph.group', id: b, displayName: 'B' },
      { '@odata.type': '#microsoft.graph.group', id: a, displayName: 'A' },
    ]);
    // User.Read.All alone reads a user's groups with "limited information": type and id.
    const usersOnly = await tokenFor('User.Read.All');
    expect((await of(`users/${ann.id}`, usersOnly))?.[0]).toEqual({
      '@odata.type': '#microsoft.graph.group',
      id: c,
      displayName: null,
    });
    expect((await get(`/v1.0/groups/${b}/transitiveMemberOf?$select=id`, usersOnly)).status).toBe(403);
    expect((await of(`groups/${b}`))?.map((g) => g.id)).toEqual([a, c]);
    entra.deleteUser(ann.id);
    expect((await get(`/v1.0/users/${ann.id}/transitiveMemberOf`, token)).status).toBe(404);
  });

  it('keeps tenants apart: each token reads its own tenant, and a next link of one tenant is refused in another', async () => {
    const other = entra.addTenant({ domain: 'fabrikam.onmicrosoft.com' });
    for (let n = 0; n < 3; n++) user(n);
    other.createUser({ userPrincipalName: 'x@fabrikam.onmicrosoft.com', displayName: 'X' });
    const app = other.createApp({ permissions: ['User.Read.All'] });
    const { secret } = other.addSecret(app.clientId);
    const form = {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      scope: entra.scope,
      client_secret: secret,
    };
    const response = await fetch(other.tokenUrl.replace(other.tenantId, 'fabrikam.onmicrosoft.com'), {
      method: 'POST',
      body: new URLSearchParams(form),
    });
    const otherToken = ((await response.json()) as Json).access_token as string;
    expect((await get('/v1.0/users?$select=displayName', otherToken)).body.value).toEqual([
      { displayName: 'X' },
    ]);
    const home = await get('/v1.0/users?$select=displayName&$top=1', await tokenFor('User.Read.All'));
    expect((await get(home.body['@odata.nextLink'] as string, otherToken)).status).toBe(400);
    const wrongTenant = await fetch(entra.tokenUrl, { method: 'POST', body: new URLSearchParams(form) });
    expect(await wrongTenant.json()).toMatchObject({ error_codes: [700016] });
  });
});
