import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { canonicalGroupJson, canonicalUserJson } from '../../src/domain/canonical.js';
import type { IdentityKind } from '../../src/domain/identity.js';
import { createKeys } from '../../src/store/keys.js';
import { migrateOwners } from '../../src/store/owner-migration.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { testConfig } from '../support/config.js';
import { startEngine, startTarget, TARGET_TOKEN, type EngineFixture } from '../support/engine.js';
import { spawnBridge, type BridgeProcess } from '../support/processes.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from '../support/redis.js';

// Real: Redis holding identities written the way bridges before owners wrote them (no owner field,
// no owned sets: the key layout of keys.ts, written here command by command), then a bridge's
// start-up (main.ts wiring), the migration run again, and two bridge processes started at once.
describe('identities stored before owners existed', () => {
  const SCIM_TOKEN = 'migration-scim-token-0123456789';
  const ADMIN_TOKEN = 'migration-admin-token-0123456789';
  let redis: RedisClient | undefined;
  let target: ReferenceTarget | undefined;
  let engine: EngineFixture | undefined;
  const processes: BridgeProcess[] = [];
  const prefixes: string[] = [];

  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.stop('SIGKILL')));
    await engine?.close();
    await target?.close();
    if (redis) await closeRedis(redis);
    for (const prefix of prefixes.splice(0)) await deleteKeys(prefix);
    engine = undefined;
    target = undefined;
    redis = undefined;
  });

  function connect(): { keys: ReturnType<typeof createKeys>; prefix: string } {
    const prefix = uniquePrefix('migrate');
    prefixes.push(prefix);
    redis = createRedis(testConfig({ KEY_PREFIX: prefix }).redis, 'worker');
    return { keys: createKeys(prefix), prefix };
  }

  /** An identity as an older bridge stored it: doc, hash, creation order, name index, history. */
  async function writeOld(
    keys: ReturnType<typeof createKeys>,
    kind: IdentityKind,
    id: string,
    name: string,
    signals: string[] = [],
  ): Promise<void> {
    const client = redis as RedisClient;
    const doc =
      kind === 'user'
        ? canonicalUserJson({ id, userName: name, active: true })
        : canonicalGroupJson({ id, displayName: name });
    const seq = await client.incr(keys.sequence(kind));
    const now = Date.now();
    const pipeline = client
      .pipeline()
      .set(keys.doc(kind, id), doc)
      .hset(keys.identity(kind, id), 'cr', now, 'ts', now, 'v', 1)
      .zadd(keys.all(kind), seq, id)
      .hset(keys.nameIndex(kind), name.toLowerCase(), id);
    // The list is newest first: the last signal given is the newest.
    for (const source of signals) {
      pipeline.lpush(keys.history(kind, id), JSON.stringify({ at: now, type: 'signal', source }));
    }
    pipeline.lpush(keys.history(kind, id), JSON.stringify({ at: now, type: 'decision', decision: 'create' }));
    await pipeline.exec();
  }

  const owners = async (keys: ReturnType<typeof createKeys>, kind: IdentityKind, ids: string[]) =>
    Promise.all(ids.map((id) => (redis as RedisClient).hget(keys.identity(kind, id), 'o')));

  it('gives each an owner at start-up, from its newest signal, else the configured directory', async () => {
    const { keys, prefix } = connect();
    await writeOld(keys, 'user', 'pushed', 'pushed@example.com', ['scim']);
    await writeOld(keys, 'user', 'fed', 'fed@example.com', ['scim', 'events']);
    await writeOld(keys, 'user', 'hooked', 'hooked@example.com', ['okta']);
    await writeOld(keys, 'user', 'snap', 'snap@example.com', ['snapshot']);
    await writeOld(keys, 'user', 'synced', 'synced@example.com');
    await writeOld(keys, 'group', 'team', 'Team', ['scim']);
    await writeOld(keys, 'group', 'dir-team', 'Directory Team');

    target = await startTarget();
    const started = await startEngine(target, {
      KEY_PREFIX: prefix,
      DIRECTORY_NAME: 'corp-ldap',
      INBOUND_SCIM_TOKEN: SCIM_TOKEN,
      ADMIN_TOKEN,
    });
    engine = started;
    const directory = 'directory:corp-ldap';
    expect(await owners(keys, 'user', ['pushed', 'fed', 'hooked', 'snap', 'synced'])).toEqual([
      'scim',
      'events',
      'okta',
      directory,
      directory,
    ]);
    expect(await owners(keys, 'group', ['team', 'dir-team'])).toEqual(['scim', directory]);
    expect(await (redis as RedisClient).zrange(keys.owned('user', directory), 0, -1)).toEqual([
      'snap',
      'synced',
    ]);
    // The IdP sees what it pushed, and only that.
    const http = () => request(started.bridge.http.server);
    const users = await http().get('/scim/v2/Users').set('Authorization', `Bearer ${SCIM_TOKEN}`).expect(200);
    expect(users.body.Resources.map((u: { id: string }) => u.id)).toEqual(['pushed']);
    const status = await http()
      .get('/admin/status')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
    expect(status.body.owners).toEqual({
      scim: { users: 1, groups: 1 },
      events: { users: 1, groups: 0 },
      okta: { users: 1, groups: 0 },
      [directory]: { users: 2, groups: 1 },
    });

    // Done once: the marker makes the next start skip it; run again anyway, it changes nothing.
    expect(await (redis as RedisClient).exists(keys.ownersMigration())).toBe(1);
    expect(await migrateOwners(redis as RedisClient, keys, 'directory:corp-ldap')).toEqual({
      ran: false,
      users: 0,
      groups: 0,
    });
    await (redis as RedisClient).hdel(keys.identity('user', 'fed'), 'o');
    const again = await migrateOwners(redis as RedisClient, keys, 'directory:corp-ldap', { force: true });
    expect(again).toEqual({ ran: true, users: 1, groups: 0 });
    expect(await owners(keys, 'user', ['pushed', 'fed', 'synced'])).toEqual(['scim', 'events', directory]);
    expect(await (redis as RedisClient).zcard(keys.owned('user', 'events'))).toBe(1);
  });

  it('is safe when two processes start at once', async () => {
    const { keys, prefix } = connect();
    const client = redis as RedisClient;
    for (let i = 0; i < 1200; i++) {
      await writeOld(
        keys,
        'user',
        `u${i}`,
        `user${i}@example.com`,
        i % 3 === 0 ? ['scim'] : i % 3 === 1 ? ['events'] : [],
      );
    }
    target = await startTarget();
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: prefix,
      TARGET_URL: target.url,
      TARGET_TOKEN,
    };
    processes.push(...(await Promise.all([spawnBridge(['worker'], env), spawnBridge(['worker'], env)])));
    const all = await owners(
      keys,
      'user',
      Array.from({ length: 1200 }, (_, i) => `u${i}`),
    );
    expect(all.filter((o) => o === null)).toEqual([]);
    expect(all.filter((o) => o === 'scim')).toHaveLength(400);
    expect(all.filter((o) => o === 'events')).toHaveLength(400);
    expect(await client.zcard(keys.owned('user', 'scim'))).toBe(400);
    expect(await client.zcard(keys.owned('user', 'events'))).toBe(400);
    expect(await client.zcard(keys.owned('user', 'directory:directory'))).toBe(400);
    expect(await client.exists(keys.ownersMigration())).toBe(1);
    expect(processes.map((p) => p.output()).join('\n')).toContain(
      'identities stored before owners now have one',
    );
  }, 60_000);
});
