import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { collectSnapshot } from '../../src/sources/directory/collect-snapshot.js';
import type { DirectorySettings } from '../../src/config/schema.js';
import { buildDirectorySource, createInputs } from '../../src/sources/registry.js';
import { testConfig } from '../support/config.js';
import { startTarget } from '../support/engine.js';
import { GoogleWorkspace, READ_ONLY_SCOPES } from '../support/google-workspace.js';
import { logSink } from '../support/log-sink.js';
import { until } from '../support/until.js';
import {
  directoriesConfig,
  seedSmallDirectory,
  startGoogleBridge,
  tempFiles,
  type Files,
  type GoogleBridge,
  type SmallDirectory,
} from './google-fixture.js';

// Real: the bridge (main.ts wiring: admin API, Redis, BullMQ workers) with a google directory as
// an item of `directories:` in a CONFIG_FILE, the Google Workspace emulation (token endpoint,
// Directory API with its paging, quota and faults) and the reference target, over HTTP; the
// scope examples read the source through the input registry's full read (no platform).
const INPUT = 'directory:gws';

describe('full reads of Google Workspace', () => {
  let google: GoogleWorkspace;
  let target: ReferenceTarget;
  let bridge: GoogleBridge;
  let files: Files;
  let dir: SmallDirectory;
  const logs = logSink([], 'info');
  const at = (name: string) => `${name}@${google.domain}`;
  const user = (name: string) => target.users().find((u) => u.userName === at(name));
  const members = (displayName: string) =>
    (target.groups().find((g) => g.displayName === displayName)?.members ?? [])
      .map(
        (m) =>
          target
            .users()
            .find((u) => u.id === m.value)
            ?.userName.split('@')[0],
      )
      .sort();

  beforeAll(async () => {
    google = await GoogleWorkspace.start();
    dir = seedSmallDirectory(google);
    files = tempFiles();
    target = await startTarget();
    const config = directoriesConfig(files, google, [
      { name: 'gws', google: { requestsPerMinute: 120, backoffBaseMs: 20 } },
    ]);
    bridge = await startGoogleBridge(target, { CONFIG_FILE: config }, logs.logger);
  });
  afterAll(async () => {
    await bridge?.close();
    await target?.close();
    await google?.close();
    files?.remove();
  });

  it('reads users and nested groups: owners are members, CUSTOMER is everyone, outsiders left out and counted', async () => {
    expect(await bridge.run({ input: INPUT })).toMatchObject({ state: 'completed' });
    expect(target.users()).toHaveLength(7);
    expect(user('ann')).toMatchObject({
      externalId: dir.users.ann,
      active: true,
      name: { givenName: 'ann', familyName: 'Tester' },
      emails: [{ value: at('ann'), primary: true }],
    });
    expect([user('bob')?.active, user('carol')?.active]).toEqual([false, false]); // suspended, archived
    expect(members('Engineering')).toEqual(['ann', 'bob', 'erin']);
    expect(members('Platform')).toEqual(['ann', 'bob']);
    expect(members('Sales')).toEqual(['carol', 'dan']); // dan was added by his alias
    expect(members('Everyone')).toEqual(['admin', 'ann', 'bob', 'carol', 'dan', 'erin', 'frank']);
    expect([members('Loop A'), members('Loop B')]).toEqual([['frank'], ['frank']]);
    expect(logs.lines().find((l) => l.msg === 'Google Workspace read in full')).toMatchObject({
      users: 7,
      groups: 6,
      external: 1,
      foreignGroups: 1,
    });
    const paths = google.requests().map((r) => r.path);
    const users = paths.find((p) => p.startsWith('/admin/directory/v1/users?')) ?? '';
    expect(new URL(users, google.url).searchParams.get('maxResults')).toBe('500');
    expect(users).not.toContain('projection');
    expect(paths.filter((p) => /\/groups\/[^/]+\/members\?/.test(p))).toHaveLength(6);
    // Another customer's subgroup is never asked for: it is not among the customer's groups.
    expect(google.requests().every((r) => r.status === 200)).toBe(true);
  });

  it('completes a full read with a fifth of its requests answered 403 userRateLimitExceeded, under the budget', async () => {
    const since = google.requests().length;
    google.faultRate({ kind: 'userRateLimitExceeded', rate: 0.2, seed: 7 });
    expect(await bridge.run({ input: INPUT })).toMatchObject({ state: 'completed' });
    google.faults.clear();
    const read = google
      .requests()
      .slice(since)
      .filter((r) => r.api !== undefined);
    expect(read.filter((r) => r.status === 403).length).toBeGreaterThan(0);
    expect(target.users()).toHaveLength(7);
    // 120 a minute: 2 a second, and a burst of one more; so never more than 6 in 2 seconds.
    const busiest = Math.max(
      ...read.map((r) => read.filter((o) => o.at >= r.at && o.at < r.at + 2000).length),
    );
    expect(busiest).toBeLessThanOrEqual(6);
    expect(google.observed().refused).toBe(0);
  });

  it('scopes by group membership, by org unit, by role and by a custom schema: one expression each', async () => {
    const config = testConfig({
      CONFIG_FILE: directoriesConfig(files, google, [
        { name: 'eng', scope: { users: `memberOf("${at('eng')}")` } },
        { name: 'sales', scope: { users: 'orgUnitPath == "/Sales" || orgUnitPath.startsWith("/Sales/")' } },
        { name: 'owners', scope: { users: `"${at('platform')}" in values("ownerOf")` } },
        { name: 'cc', scope: { users: 'attr("Employment.costCenter") == "CC7"' } },
      ]),
    });
    const inputs = createInputs(config);
    const read = async (name: string) => {
      const input = inputs.get(`directory:${name}`)?.full;
      if (!input) throw new Error(`no input ${name}`);
      const snapshot = await collectSnapshot(input);
      return snapshot.users.map((u) => u.userName.split('@')[0]).sort();
    };
    const since = google.requests().length;
    expect(await read('eng')).toEqual(['ann', 'bob', 'erin']);
    expect(await read('sales')).toEqual(['carol', 'dan']);
    expect(await read('owners')).toEqual(['ann']);
    expect(await read('cc')).toEqual(['frank']);
    const lists = google
      .requests()
      .slice(since)
      .filter((r) => r.path.startsWith('/admin/directory/v1/users?'))
      .map((r) => new URL(r.path, google.url).searchParams.get('projection'));
    expect(lists).toEqual([null, null, null, 'full']);
  });
});

describe('a read of Google Workspace is whole or it is nothing', () => {
  let google: GoogleWorkspace;
  let target: ReferenceTarget;
  let bridge: GoogleBridge;
  let files: Files;
  const active = () => target.users().filter((u) => u.active !== false).length;

  beforeAll(async () => {
    google = await GoogleWorkspace.start();
    // 511 users with the administrator: two pages of users.list.
    for (let i = 0; i < 510; i++) google.seed.user({ primaryEmail: `user${i}@${google.domain}` });
    files = tempFiles();
    target = await startTarget();
    const config = directoriesConfig(files, google, [
      { name: 'gws', google: { backoffBaseMs: 20, retryAttempts: 3 } },
    ]);
    bridge = await startGoogleBridge(target, { CONFIG_FILE: config });
    expect(await bridge.run({ input: INPUT })).toMatchObject({ state: 'completed' });
    expect(active()).toBe(511);
  });
  afterAll(async () => {
    await bridge?.close();
    await target?.close();
    await google?.close();
    files?.remove();
  });

  const usersPages = () => google.requests().filter((r) => r.api === 'directory.users.list');

  it('a 503 that will not clear fails the read, after its retries, and deprovisions nobody', async () => {
    google.fault({
      kind: 'backendError',
      method: 'directory.users.list',
      path: 'pageToken=',
      times: Infinity,
    });
    const before = usersPages().length;
    const view = await bridge.run({ input: INPUT });
    google.faults.clear();
    expect(view).toMatchObject({ state: 'failed', error: { code: 'source_unavailable' } });
    expect(
      usersPages()
        .slice(before)
        .map((r) => r.status),
    ).toEqual([200, 503, 503, 503]);
    expect(active()).toBe(511);
  });

  it('a 200 without "users" fails the read and deprovisions nobody', async () => {
    google.fault({ kind: 'missingListKey', method: 'directory.users.list', path: 'pageToken=' });
    const view = await bridge.run({ input: INPUT });
    expect(view).toMatchObject({ state: 'failed', error: { code: 'source_invalid' } });
    expect(view.error?.message).toContain('without "users"');
    expect(active()).toBe(511);
  });

  it('a page walk cut short fails the read and deprovisions nobody', async () => {
    google.fault({ kind: 'truncatedWalk', method: 'directory.users.list' });
    const view = await bridge.run({ input: INPUT });
    expect(view).toMatchObject({ state: 'failed', error: { code: 'source_invalid' } });
    expect(view.error?.message).toContain('ended early');
    expect(active()).toBe(511);
  });
});

describe('signing in to Google Workspace', () => {
  let google: GoogleWorkspace;
  let files: Files;
  const sourceOf = (items: Parameters<typeof directoriesConfig>[2]) => {
    const config = testConfig({ CONFIG_FILE: directoriesConfig(files, google, items) });
    const source = buildDirectorySource(config.directories[0] as DirectorySettings);
    if (!source?.check) throw new Error('the google source has no check');
    return source as typeof source & { check: NonNullable<typeof source.check> };
  };

  beforeAll(async () => {
    google = await GoogleWorkspace.start();
    seedSmallDirectory(google);
    files = tempFiles();
  });
  afterAll(async () => {
    await google?.close();
    files?.remove();
  });

  it("check-config's checks say in plain words which scope the delegation lacks, and an administrator who may not read", async () => {
    const email = google.serviceAccount.client_email;
    const all = READ_ONLY_SCOPES;
    google.accounts.setDelegation(
      email,
      all.filter((s) => !s.endsWith('admin.reports.audit.readonly')),
    );
    const checks = await sourceOf([{ name: 'gws' }]).check();
    google.accounts.setDelegation(email, all);
    expect(checks[0]).toMatchObject({ what: 'sign-in', ok: false });
    expect(checks[0]?.detail).toContain('not granted domain-wide delegation of every scope asked');
    expect(checks.slice(1).map((c) => [c.what, c.ok])).toEqual([
      ['admin.directory.user.readonly', true],
      ['admin.directory.group.readonly', true],
      ['admin.directory.group.member.readonly', true],
      ['admin.reports.audit.readonly', false],
    ]);

    const notAdmin = await sourceOf([
      { name: 'gws', google: { adminSubject: `frank@${google.domain}` } },
    ]).check();
    expect(notAdmin.map((c) => c.ok)).toEqual([true, false, false, false, false]);
    expect(notAdmin[1]?.detail).toContain('may not read users and groups');
    expect(notAdmin[4]?.detail).toContain('may not read the audit log');
    expect((await sourceOf([{ name: 'gws' }]).check()).every((c) => c.ok)).toBe(true);
  });

  it('re-reads a rotated key from its file; a deleted key is refused in plain words', async () => {
    const source = sourceOf([{ name: 'gws' }]);
    expect((await source.read()).users).toHaveLength(7);
    const email = google.serviceAccount.client_email;
    const rotated = google.accounts.addKey(email);
    google.accounts.deleteKey(email, google.serviceAccount.private_key_id);
    google.expireAccessTokens();
    const refused = await source.read().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toContain("the key is not one of the service account's keys");
    files.write('service-account.json', JSON.stringify(rotated));
    await until(
      'a read with the rotated key',
      () =>
        source.read().then(
          () => true,
          () => false,
        ),
      {
        timeoutMs: 10_000,
      },
    );
  });
});
