import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { ldapSourceEnv, range, testDirectory } from '../support/ldap-directory.js';
import { uniquePrefix } from '../support/redis.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

// Real: slapd (test/support/slapd.ts), the bridge (main.ts wiring: admin API, Redis, BullMQ
// workers, the ldap source under a scope and mapping from a CONFIG_FILE), the reference target
// over HTTP. What is checked: a scope by group membership (nested groups included), a userName
// computed from uid, a preview whose counts and diffs are exact (with a collision and an
// unmappable user) and that writes nothing, and the `configuration-changed` hold of a narrowed scope.
const SUFFIX = 'dc=example,dc=com';
const PEOPLE = 50;
const ADMIN = 'admin-token-for-scope-mapping';
const auth = { Authorization: `Bearer ${ADMIN}` };
const { person, dnOf, groupDn } = testDirectory(SUFFIX);

/** eng: p01–p10 and the nested group platform (p11–p20); all: eng and p21–p30; p31–p50 in none. */
function directoryLdif(): string {
  return testDirectory(SUFFIX).ldif(PEOPLE, [
    ['platform', range(11, 20).map(dnOf)],
    ['eng', [...range(1, 10).map(dnOf), groupDn('platform')]],
    ['all', [groupDn('eng'), ...range(21, 30).map(dnOf)]],
  ]);
}

describe('scope and mapping of an LDAP directory', () => {
  let dir: string;
  let slapd: Slapd;
  let target: ReferenceTarget;
  let engine: EngineFixture | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-scope-'));
    writeFileSync(join(dir, 'directory.ldif'), directoryLdif());
    slapd = await startSlapd({ suffix: SUFFIX, ldif: [join(dir, 'directory.ldif')] });
  });
  afterAll(async () => {
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await target?.close();
  });

  /** A bridge reading the directory with the scope and mapping of `policy` (YAML under directory:). */
  async function startBridge(keyPrefix: string, policy = ''): Promise<EngineFixture> {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, `directory:\n  name: directory\n${policy}`);
    return startEngine(target, {
      CONFIG_FILE: file,
      KEY_PREFIX: keyPrefix,
      ADMIN_TOKEN: ADMIN,
      ...ldapSourceEnv(slapd, SUFFIX),
    });
  }
  /** A bridge synced once with the defaults, then started again on its keys with `policy`. */
  async function restartedWith(policy: string): Promise<void> {
    const prefix = uniquePrefix();
    engine = await startBridge(prefix);
    expect((await sync()).state).toBe('completed');
    await engine.drain();
    await engine.bridge.close();
    engine = await startBridge(prefix, policy);
  }
  const http = () => request(engine!.bridge.http.server);
  async function sync(body: Record<string, unknown> = {}): Promise<SyncView> {
    const { jobId } = (await http().post('/admin/sync').set(auth).send(body).expect(202)).body as {
      jobId: string;
    };
    let view = { state: '' } as SyncView;
    await expect
      .poll(
        async () => {
          view = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as SyncView;
          return ['completed', 'failed', 'awaiting-approval'].includes(view.state);
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    return view;
  }
  const page = async (jobId: string, category: string) =>
    (await http().get(`/admin/sync/${jobId}/preview?category=${category}&limit=100`).set(auth).expect(200))
      .body as {
      total: number;
      items: { id: string; name: string | null; reason?: string; with?: string; changes?: unknown[] }[];
    };

  it('provisions the members of a group, nested ones included, with a userName made from uid', async () => {
    target = await startTarget({ pageCap: 100 });
    const scope = `  scope:\n    users: 'memberOf("cn=eng,ou=groups,dc=example,dc=com")'\n`;
    const mapping = `  mapping:\n    users:\n      userName: 'uid + "@corp.example.com"'\n`;
    engine = await startBridge(uniquePrefix(), scope + mapping);
    const view = await sync();
    expect(view.state).toBe('completed');
    await engine.drain();
    const names = target
      .users()
      .map((u) => u.userName)
      .sort();
    expect(names).toEqual(range(1, 20).map((n) => `${person(n)}@corp.example.com`));
    const members = (cn: string) => (target.groups().find((g) => g.displayName === cn)?.members ?? []).length;
    expect([members('eng'), members('platform'), members('all')]).toEqual([20, 10, 20]);
    expect(view.policyFingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('previews a candidate exactly, collision and unmappable user included, and writes nothing', async () => {
    target = await startTarget({ pageCap: 100 });
    engine = await startBridge(uniquePrefix());
    expect((await sync()).state).toBe('completed');
    await engine.drain();
    const before = target.stats().requests.length;
    const candidate = {
      scope: { users: 'memberOf("cn=eng,ou=groups,dc=example,dc=com")' },
      mapping: {
        users: {
          userName: 'uid == "p05" ? "" : uid == "p07" ? "p06@example.com" : mail',
          givenName: 'upper(uid)',
        },
      },
    };
    const view = await sync({ dryRun: true, candidate });
    expect(view.state).toBe('completed');
    expect(view.preview?.counts).toEqual({
      entering: { users: 0, groups: 0 },
      leaving: { users: 30, groups: 0 },
      changed: { users: 18, groups: 0 },
      unmappable: { users: 1, groups: 0 },
      collisions: { users: 1, groups: 0 },
      unchanged: { users: 0, groups: 3 },
    });
    expect(view.preview?.after.settings.scope.users).toBe(candidate.scope.users);
    expect(view.plan?.holdReasons).toContain('configuration-changed');
    const unmappable = await page(view.jobId, 'unmappable');
    expect(unmappable.items).toEqual([
      expect.objectContaining({ name: 'p05@example.com', reason: 'userName: empty', label: dnOf(5) }),
    ]);
    const collisions = await page(view.jobId, 'collisions');
    expect(collisions.items).toEqual([expect.objectContaining({ name: 'p06@example.com', label: dnOf(7) })]);
    const changed = await page(view.jobId, 'changed');
    expect(changed.total).toBe(18);
    expect(changed.items[0]).toEqual(
      expect.objectContaining({
        name: 'p01@example.com',
        changes: [{ attribute: 'givenName', before: null, after: 'P01' }],
      }),
    );
    const leaving = await page(view.jobId, 'leaving');
    expect(leaving.items.map((i) => i.name).sort()).toEqual(
      range(21, 50).map((n) => `${person(n)}@example.com`),
    );
    // A dry run: nothing but reads reached the platform.
    const sent = target.stats().requests.slice(before);
    expect(sent.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(target.users().length).toBe(PEOPLE);
  });

  it('says a preview whose candidate keeps no user in would be refused, and why, keeping its counts', async () => {
    target = await startTarget({ pageCap: 100 });
    engine = await startBridge(uniquePrefix());
    expect((await sync()).state).toBe('completed');
    await engine.drain();
    const candidate = {
      scope: { users: 'memberOf("cn=nobody,ou=groups,dc=example,dc=com") || uid == "p02"' },
      mapping: { users: { userName: 'uid == "p02" ? "" : mail' } },
    };
    const view = await sync({ dryRun: true, candidate });
    expect(view.state).toBe('failed');
    expect(view.error).toMatchObject({ code: 'source_empty', side: 'source' });
    expect(view.error?.message).toMatch(
      /^The directory source \(ldap\) lists 50 users, but the candidate's scope and mapping leave none of them in \(49 out of scope, 1 cannot be mapped\) while the bridge manages 50: /,
    );
    expect(view.preview?.counts.leaving).toEqual({ users: 49, groups: 0 });
    expect((await page(view.jobId, 'unmappable')).items).toEqual([
      expect.objectContaining({ id: expect.any(String), reason: 'userName: empty', label: dnOf(2) }),
    ]);
    expect(target.users().filter((u) => u.active === false)).toEqual([]);
  });

  it('says a scope in force that keeps no user in is why a sync is refused', async () => {
    target = await startTarget({ pageCap: 100 });
    await restartedWith(`  scope:\n    users: 'memberOf("cn=nobody,ou=groups,dc=example,dc=com")'\n`);
    const refused = await sync();
    expect(refused.error?.message).toMatch(
      /^The directory source \(ldap\) lists 50 users, but its scope and mapping leave none of them in \(50 out of scope\) while the bridge manages 50: /,
    );
    expect(target.users().filter((u) => u.active === false)).toEqual([]);
  });

  it('says the scope in force is why a sync is refused once the last user in it is gone', async () => {
    target = await startTarget({ pageCap: 100 });
    const ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
    const dn = `uid=x99,ou=people,${SUFFIX}`;
    await ldap.add(dn, {
      objectClass: 'inetOrgPerson',
      uid: 'x99',
      cn: 'X',
      sn: 'X',
      mail: 'x99@example.com',
    });
    try {
      engine = await startBridge(uniquePrefix(), `  scope:\n    users: 'uid == "x99"'\n`);
      expect((await sync()).state).toBe('completed');
      await engine.drain();
      await ldap.del(dn);
      // The scope is the one the last sync applied: nothing compares it, the read counts no one.
      const refused = await sync();
      expect(refused.error?.message).toMatch(
        /^The directory source \(ldap\) lists no users in its scope and mapping while the bridge manages 1: /,
      );
      expect(target.users().filter((u) => u.active === false)).toEqual([]);
    } finally {
      await ldap.del(dn).catch(() => undefined);
      await ldap.unbind();
    }
  });

  it('leaves out the one user an expression fails on, reported, and completes the run', async () => {
    target = await startTarget({ pageCap: 100 });
    const mapping = `  mapping:\n    users:\n      userName: 'uid == "p03" ? values("mail")[1] : mail'\n`;
    engine = await startBridge(uniquePrefix(), mapping);
    const view = await sync();
    expect(view.state).toBe('completed');
    expect(view.skipped).toEqual({
      count: 1,
      sample: [
        {
          kind: 'users',
          label: dnOf(3),
          reason: 'mapping.users.userName: No such key: index out of bounds, index 1 >= size 1',
        },
      ],
    });
    await engine.drain();
    expect(target.users().length).toBe(PEOPLE - 1);
  });

  it('holds the next sync with configuration-changed once a scope narrowed by 40% is made active', async () => {
    target = await startTarget({ pageCap: 100 });
    await restartedWith(`  scope:\n    users: 'memberOf("cn=all,ou=groups,dc=example,dc=com")'\n`);
    const held = await sync();
    expect(held.state).toBe('awaiting-approval');
    expect(held.plan?.holdReasons).toContain('configuration-changed');
    expect(held.preview?.counts.leaving).toEqual({ users: 20, groups: 0 });
    expect(target.users().filter((u) => u.active === false)).toEqual([]);
  });
});

interface SyncView {
  jobId: string;
  state: string;
  error?: { code: string; side: string; message: string };
  policyFingerprint?: string;
  skipped?: unknown;
  plan?: { holdReasons?: string[] };
  preview?: {
    counts: Record<string, { users: number; groups: number }>;
    after: { settings: { scope: { users: string } } };
  };
}
