import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import type { StoredGroupEdges } from '../../src/domain/group-graph.js';
import type { DeltaSource, SourceChange } from '../../src/domain/input.js';
import { factsOf } from '../../src/domain/policy-context.js';
import type { SnapshotSink } from '../../src/domain/snapshot-sink.js';
import { silentLogger } from '../../src/ops/logger.js';
import { entraSource } from '../../src/sources/directory/entra/entra.kind.js';
import { entraSettings, type EntraSettings } from '../../src/sources/directory/entra/entra.settings.js';
import type { DirectorySource } from '../../src/sources/directory/directory-source.js';
import type { SourceContext } from '../../src/sources/source-kind.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import {
  generateCertificate,
  startEntraGraph,
  type EntraGraphServer,
  type ScaleFixture,
} from '../support/entra-graph.js';
import { deleteKeys } from '../support/redis.js';

// Real: the `entra` source as its kind builds it, against the Entra emulation over HTTP (its
// sign-in and Graph, test/support/entra-graph.ts), and the input's group graph kept in Redis.
// Not here: the bridge around it (entra-sync.test.ts). The tenant is a small scale fixture:
// chains of nested groups (one closing a cycle), a group whose members fill several delta pages,
// guests, users without mail, a device, a contact and a service principal among members.

describe('the entra source', () => {
  let entra: EntraGraphServer;
  let store: StoreSide;
  let fixture: ScaleFixture;
  let clientId = '';
  let secret = '';
  let secretId = '';
  let dir = '';
  let owner = 0;

  beforeAll(async () => {
    entra = await startEntraGraph();
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
    const app = entra.createApp({
      permissions: ['User.Read.All', 'GroupMember.Read.All', 'Application.Read.All'],
    });
    clientId = app.clientId;
    ({ secret, secretId } = entra.addSecret(clientId));
    fixture = entra.seedScale({ users: 400, groups: 44, depth: 4, membersPerGroup: 6, bigGroupMembers: 300 });
    entra.setDeltaPaging({ objectsPerPage: 20, membersPerPage: 40 });
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-entra-reads-'));
  });
  afterAll(async () => {
    await store?.close();
    if (store) await deleteKeys(store.keys.prefix);
    await entra?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const settingsOf = (overrides: Partial<EntraSettings> = {}): EntraSettings =>
    entraSettings.shape.parse({
      tenantId: entra.tenantId,
      clientId,
      clientSecret: secret,
      authorityHost: entra.loginUrl,
      graphUrl: entra.graphUrl,
      ...overrides,
    });
  const contextOf = (settings: EntraSettings): SourceContext => ({
    name: 'directory',
    owner: 'directory:directory',
    policies: [],
    secret: (key) => () => String((settings as Record<string, unknown>)[key] ?? ''),
  });
  const build = (overrides: Partial<EntraSettings> = {}): { source: DirectorySource; delta: DeltaSource } => {
    const settings = settingsOf(overrides);
    const context = contextOf(settings);
    const delta = entraSource.changes?.(settings, context);
    if (!delta) throw new Error('the entra kind has no change read');
    return { source: entraSource.build(settings, context), delta };
  };
  const graph = (): StoredGroupEdges => store.sync.groupEdges(`directory:reads-${owner++}`);

  const groupIds = () => Array.from({ length: fixture.groups }, (_, g) => fixture.groupId(g));
  /** A group's users through its nested groups, from the emulation's own state (live users only). */
  const truth = (groupId: string): string[] => {
    const groups = new Set(groupIds());
    const users = new Set<string>();
    const seen = new Set([groupId]);
    for (const queue = [groupId]; queue.length > 0;) {
      for (const member of entra.members(queue.shift() as string)) {
        const object = entra.object(member);
        if (groups.has(member) && !seen.has(member) && object) {
          seen.add(member);
          queue.push(member);
        } else if (object?.userPrincipalName !== undefined && !object.deleted) users.add(member);
      }
    }
    return [...users].sort();
  };

  it('reads users and groups in full: mapped, facts attached, nested members flattened, others left out', async () => {
    const { source } = build();
    entra.faults.next(1, { status: 503, retryAfter: null });
    entra.faults.next(1, { status: 504 });
    const read = await capture(source);
    expect(read.users).toHaveLength(400);
    const guest = read.users.find((user) => user.id === fixture.guestIds[0]);
    expect(guest).toMatchObject({ userName: expect.stringContaining('#EXT#@') });
    expect(factsOf(guest)?.attribute('userType')).toBe('Guest');
    expect(read.users.filter((user) => user.emails === undefined)).toHaveLength(fixture.usersWithoutMail);
    expect(read.users.find((user) => user.id === fixture.userId(0))).toMatchObject({
      active: false, // every 97th is disabled
      name: { givenName: 'Given0', familyName: 'Family0' },
      emails: [{ value: `person0@${entra.domain}`, primary: true }],
    });
    expect(read.groups).toHaveLength(fixture.groups);
    for (const group of read.groups)
      expect([...(group.members as string[])].sort()).toEqual(truth(group.id as string));
    const [deepest, root] = fixture.cycle;
    expect([...(read.groups.find((g) => g.id === deepest)?.members as string[])].sort()).toEqual(truth(root));
    expect(read.skipped.map((s) => s.label.split(' ')[0]).sort()).toEqual([
      'device',
      'orgContact',
      'servicePrincipal',
    ]);
    // The full list of users in one page of 999, groups and members in one delta round.
    const paths = entra.requests().map((r) => r.path.split('?')[0]);
    expect(
      paths.filter(
        (p) => p === '/v1.0/groups' || (p?.startsWith('/v1.0/groups/') && p !== '/v1.0/groups/delta'),
      ),
    ).toEqual([]);
  });

  it('follows changes through delta rounds split, shuffled, duplicated and replayed, one net change per object', async () => {
    const { source, delta } = build();
    const edges = graph();
    const start = await delta.position({ groupEdges: edges });
    await source.stream(sinkOf().sink, { groupEdges: edges });
    const leaf = fixture.groupId(3); // chain 0's deepest group: its root holds it through the cycle
    const newcomer = entra.createUser({ userPrincipalName: `newcomer@${entra.domain}`, displayName: 'New' });
    entra.addMember(leaf, newcomer.id);
    for (let i = 30; i < 90; i++) entra.addMember(fixture.bigGroupId, fixture.userId(i));
    entra.removeMember(fixture.groupId(5), fixture.userId(30));
    entra.deleteUser(fixture.userId(1));
    entra.updateGroup(fixture.groupId(9), { displayName: 'Renamed' });
    entra.purgeGroup(fixture.groupId(6)); // a security group: gone at once, its parents lose it
    entra.setDeltaPaging({ objectsPerPage: 3, membersPerPage: 7 });
    entra.setDeltaChaos({ shuffle: true, duplicates: 0.3, emptyPages: 0.2, replay: 4, seed: 5 });
    try {
      const first = await delta.changesSince(start, { groupEdges: edges });
      expectNet(first.changes, { removedUser: fixture.userId(1), removedGroup: fixture.groupId(6) });
      // Chain 0 (0 ⊃ 1 ⊃ 2 ⊃ 3 ⊃ 0) through the leaf, chain 1's 4 ⊃ 5 (members, a child gone), 9 renamed.
      const sent = upserted(first.changes, 'groups').map((g) => g.id);
      expect([...sent].sort()).toEqual([0, 1, 2, 3, 4, 5, 9].map((g) => fixture.groupId(g)).sort());
      expect(first.changes.filter((c) => c.op === 'remove')).toHaveLength(2);
      expect(upserted(first.changes, 'users').map((c) => c.id)).toContain(newcomer.id);
      // Replayed: the next read brings some of the same changes again, to the same end.
      const second = await delta.changesSince(first.watermark, { groupEdges: edges });
      expectNet(second.changes, { removedUser: fixture.userId(1), removedGroup: fixture.groupId(6) });
      // Restored, the user is back in its groups (group 0 and, through nesting, chain 0's others).
      entra.restoreUser(fixture.userId(1));
      const third = await delta.changesSince(second.watermark, { groupEdges: edges });
      expect(upserted(third.changes, 'users').map((u) => u.id)).toContain(fixture.userId(1));
      const chain0 = [0, 1, 2, 3].map((g) => fixture.groupId(g));
      const back = upserted(third.changes, 'groups').filter((g) => chain0.includes(g.id as string));
      expect(back.map((g) => g.id).sort()).toEqual([...chain0].sort());
      for (const group of back)
        expect([...(group.members as string[])].sort()).toEqual(truth(group.id as string));
      for (const group of back) expect(group.members).toContain(fixture.userId(1));
    } finally {
      entra.setDeltaChaos({});
      entra.setDeltaPaging({ objectsPerPage: 20, membersPerPage: 40 });
    }
  });

  /** Each group upserted once, with the members the emulation's state gives it; the removals. */
  function expectNet(
    changes: readonly SourceChange[],
    removed: { removedUser: string; removedGroup: string },
  ) {
    const groups = upserted(changes, 'groups');
    expect(new Set(groups.map((g) => g.id)).size).toBe(groups.length);
    for (const group of groups)
      expect([...(group.members as string[])].sort()).toEqual(truth(group.id as string));
    const renamed = groups.find((g) => g.id === fixture.groupId(9));
    if (renamed) expect(renamed.displayName).toBe('Renamed');
    for (const group of groups) expect(group.members).not.toContain(removed.removedUser);
    const removals = changes.filter((c) => c.op === 'remove');
    expect(removals).toContainEqual({ op: 'remove', kind: 'users', id: removed.removedUser });
    expect(removals).toContainEqual({ op: 'remove', kind: 'groups', id: removed.removedGroup });
  }

  it('removes a Microsoft 365 group soft-deleted, and brings it back restored with its members', async () => {
    const team = entra.createGroup({ displayName: 'Team M365', groupTypes: ['Unified'], mailEnabled: true });
    for (const n of [300, 301]) entra.addMember(team.id, fixture.userId(n));
    const { source, delta } = build();
    const edges = graph();
    const start = await delta.position({ groupEdges: edges });
    await source.stream(sinkOf().sink, { groupEdges: edges });
    entra.deleteGroup(team.id);
    const removed = await delta.changesSince(start, { groupEdges: edges });
    expect(removed.changes).toContainEqual({ op: 'remove', kind: 'groups', id: team.id });
    entra.restoreGroup(team.id);
    const restored = await delta.changesSince(removed.watermark, { groupEdges: edges });
    const back = upserted(restored.changes, 'groups').find((g) => g.id === team.id);
    expect([...((back?.members as string[]) ?? [])].sort()).toEqual(
      [fixture.userId(300), fixture.userId(301)].sort(),
    );
  });

  it('refuses a delta link Graph refuses, one too old, of other settings, or without a kept graph', async () => {
    const { source, delta } = build();
    const edges = graph();
    const start = await delta.position({ groupEdges: edges });
    await expectUntrusted(delta.changesSince(start, { groupEdges: edges }), 'no group graph');
    await source.stream(sinkOf().sink, { groupEdges: edges });
    entra.failDeltaLinks({ status: 410 });
    await expectUntrusted(delta.changesSince(start, { groupEdges: edges }), '410');
    entra.failDeltaLinks({ status: 400, code: 'resyncRequired' }, { resource: 'groups' });
    await expectUntrusted(delta.changesSince(start, { groupEdges: edges }), 'resyncRequired');
    const old = {
      ...start,
      value: JSON.stringify({ ...JSON.parse(start.value), at: Date.now() - 6.5 * 86_400_000 }),
    };
    await expectUntrusted(delta.changesSince(old, { groupEdges: edges }), 'more than 6 days');
    // Links asked for another selection answer another question.
    const otherSelection = build({ userAttributes: ['usageLocation'] }).delta;
    await expectUntrusted(otherSelection.changesSince(start, { groupEdges: edges }), 'another tenant');
    expect((await delta.changesSince(start, { groupEdges: edges })).watermark.kind).toBe('entra-delta');
  });

  it('scopes to the users and groups assigned to an enterprise application, nested ones included', async () => {
    const enterprise = entra.createApp({ displayName: 'Databricks' });
    const root = fixture.roots[2] as string; // chain 2: groups 8 ⊃ 9 ⊃ 10 ⊃ 11
    entra.assign(enterprise.servicePrincipalId, root);
    entra.assign(enterprise.servicePrincipalId, fixture.userId(399));
    const { source, delta } = build({ assignedTo: enterprise.servicePrincipalId });
    const edges = graph();
    const start = await delta.position({ groupEdges: edges });
    const read = await capture(source, edges);
    const chain = [8, 9, 10, 11].map((g) => fixture.groupId(g));
    expect(read.groups.map((g) => g.id).sort()).toEqual([...chain].sort());
    const inScope = new Set([...truth(root), fixture.userId(399)]);
    expect(read.users.map((u) => u.id).sort()).toEqual([...inScope].sort());

    // A user only in group 11 leaves it: out of scope, removed; one joins group 10: in scope.
    const held = new Set([8, 9, 10].flatMap((g) => entra.members(fixture.groupId(g))));
    const only11 = entra.members(fixture.groupId(11)).find((id) => !held.has(id));
    expect(only11).toBeDefined();
    entra.removeMember(fixture.groupId(11), only11 as string);
    entra.addMember(fixture.groupId(10), fixture.userId(200));
    const changes = (await delta.changesSince(start, { groupEdges: edges })).changes;
    expect(changes).toContainEqual({ op: 'remove', kind: 'users', id: only11 });
    expect(upserted(changes, 'users').map((c) => c.id)).toContain(fixture.userId(200));
    for (const group of upserted(changes, 'groups')) expect(chain).toContain(group.id);

    entra.assign(enterprise.servicePrincipalId, fixture.userId(398));
    await expectUntrusted(delta.changesSince(start, { groupEdges: edges }), 'assignments changed');
  });

  it('reads one user or group by id or userPrincipalName, a group with its nested members', async () => {
    const { source } = build();
    const readOne = source.readOne;
    if (!readOne) throw new Error('the entra source reads one identity');
    const guest = entra.object(fixture.guestIds[1] as string);
    const byUpn = await readOne('users', guest?.userPrincipalName as string);
    expect(byUpn).toMatchObject({ outcome: 'found', identity: { id: guest?.id } });
    expect(await readOne('users', '00000000-0000-4000-8000-00000000beef')).toMatchObject({
      outcome: 'absent',
    });
    const root = fixture.roots[0] as string;
    const group = await readOne('groups', root);
    if (group.outcome !== 'found') throw new Error(`the root was not found: ${JSON.stringify(group)}`);
    expect(group.identity.members?.map((m) => m.id).sort()).toEqual(truth(root));

    const enterprise = entra.createApp({ displayName: 'Scoped' });
    entra.assign(enterprise.servicePrincipalId, fixture.roots[1] as string); // groups 4 ⊃ 5 ⊃ 6(gone) …
    const scoped = build({ assignedTo: enterprise.servicePrincipalId }).source.readOne;
    const nested = truth(fixture.groupId(5))[0] as string;
    const found = await scoped?.('users', nested);
    expect(found).toMatchObject({ outcome: 'found' });
    if (found?.outcome === 'found')
      expect(factsOf(found.identity.item)?.memberKeys.has(fixture.groupId(4))).toBe(true);
    expect(await scoped?.('users', fixture.userId(10))).toMatchObject({ outcome: 'excluded' });
    expect(await scoped?.('groups', fixture.groupId(5))).toMatchObject({ outcome: 'found' });
    expect(await scoped?.('groups', fixture.groupId(12))).toMatchObject({ outcome: 'excluded' });
  });

  it('checks the sign-in and each permission in plain words', async () => {
    const words = async (overrides: Partial<EntraSettings>) =>
      (await build(overrides).source.check?.())?.map((c) => [c.what, c.ok, c.detail ?? ''] as const) ?? [];
    expect(await words({})).toEqual([
      ['sign-in', true, ''],
      ['User.Read.All', true, ''],
      ['GroupMember.Read.All', true, ''],
    ]);
    const [wrong] = await words({ clientSecret: secretId });
    expect(wrong?.[2]).toContain(
      "the client secret is wrong — often the secret's ID was pasted instead of its value",
    );
    const [tenant] = await words({ tenantId: '00000000-0000-4000-8000-000000000123' });
    expect(tenant?.[2]).toContain('the tenant was not found');
    const [client] = await words({ clientId: '00000000-0000-4000-8000-000000000321' });
    expect(client?.[2]).toContain('the tenant has no application with this client id');
    const limited = entra.createApp({ permissions: ['User.Read.All'] });
    const checks = await words({
      clientId: limited.clientId,
      clientSecret: entra.addSecret(limited.clientId).secret,
    });
    expect(checks.slice(1).map(([what, ok]) => [what, ok])).toEqual([
      ['User.Read.All', true],
      ['GroupMember.Read.All', false],
    ]);
    expect(checks[2]?.[2]).toContain('lacks the application permission GroupMember.Read.All');
    const unknown = await words({ assignedTo: '00000000-0000-4000-8000-000000000999' });
    expect(unknown[3]).toEqual([
      'Application.Read.All',
      false,
      expect.stringContaining('names no enterprise application'),
    ]);
    const expiring = entra.addSecret(clientId);
    entra.expireSecret(clientId, expiring.secretId);
    expect((await words({ clientSecret: expiring.secret }))[0]?.[2]).toContain(
      'the client secret has expired',
    );
  });

  it('signs in with a certificate, taking a renewed one from its file', async () => {
    const app = entra.createApp({ permissions: ['User.Read.All', 'GroupMember.Read.All'] });
    const first = await entra.addCertificate(app.clientId);
    const file = join(dir, 'entra.pem');
    writeFileSync(file, `${first.certificatePem}\n${first.privateKeyPem}`);
    const { source } = build({ clientId: app.clientId, clientSecret: '', clientCertificateFile: file });
    expect((await source.check?.())?.every((c) => c.ok)).toBe(true);
    const renewed = await entra.addCertificate(app.clientId);
    entra.expireCertificate(app.clientId, first.certificateId);
    const from = entra.requests().length;
    writeFileSync(file, `${renewed.privateKeyPem}\n${renewed.certificatePem}`);
    // The file is re-read (checked about every second): the next sign-in asserts the renewed one.
    const signIns = () =>
      entra
        .requests()
        .slice(from)
        .filter((r) => r.host === 'login');
    await expect
      .poll(async () => ((await source.check?.())?.[0]?.ok ? signIns().map((r) => r.status) : []), {
        timeout: 10_000,
        interval: 200,
      })
      .toEqual([200]);
    const stranger = await generateCertificate();
    writeFileSync(file, `${stranger.certificatePem}\n${stranger.privateKeyPem}`);
    const refused = build({ clientId: app.clientId, clientSecret: '', clientCertificateFile: file }).source;
    expect((await refused.check?.())?.[0]?.detail).toContain('the certificate is not registered for the app');
    writeFileSync(file, renewed.certificatePem);
    expect(() => build({ clientId: app.clientId, clientSecret: '', clientCertificateFile: file })).toThrow(
      /clientCertificateFile: .*holds no PEM private key/,
    );
  });
});

type Item = Record<string, unknown> & { id?: unknown };

function upserted(changes: readonly SourceChange[], kind: 'users' | 'groups'): Item[] {
  return changes.flatMap((c) => (c.op === 'upsert' && c.kind === kind ? [c.item as Item] : []));
}

async function expectUntrusted(read: Promise<unknown>, words: string): Promise<void> {
  const error = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isBridgeError(error, 'watermark_untrusted') ? error.message : error).toContain(words);
}

/** A sink that keeps what it is given, as a sync's stager would take it. */
function sinkOf() {
  const users: Item[] = [];
  const groups: Item[] = [];
  const skipped: { label: string; reason: string }[] = [];
  const sink: SnapshotSink = {
    add: (kind, items) => {
      (kind === 'users' ? users : groups).push(...(items as Item[]));
      return Promise.resolve();
    },
    problem: () => undefined,
    knownUsers: (ids) => Promise.resolve(ids.map((id) => users.some((u) => u.id === id))),
    remember: () => Promise.resolve(),
    recall: (_, keys) => Promise.resolve(keys.map(() => undefined)),
    skip: (_, label, reason) => skipped.push({ label, reason }),
  };
  return { sink, users, groups, skipped };
}

async function capture(source: DirectorySource, groupEdges?: StoredGroupEdges) {
  const kept = sinkOf();
  await source.stream(kept.sink, groupEdges ? { groupEdges } : {});
  return kept;
}
