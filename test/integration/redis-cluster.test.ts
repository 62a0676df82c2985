import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { signatureHeader } from '../../src/sources/events/signature.js';
import { clusterSlot } from '../../src/store/replica-ack.js';
import { convergence, settledSync, snapshotOf } from '../support/convergence.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { startClusterTopology, type ClusterTopology } from '../support/redis-cluster.js';
import { cleanUp } from '../support/clean-up.js';
import { uniquePrefix } from '../support/redis.js';

// Real: a Redis Cluster of three masters and one replica (redis-server processes on loopback), a
// bridge (`all`, the real wiring) connected to it — its Lua scripts and BullMQ queues on the
// master of its key prefix's hash slot — the reference target over HTTP, the inputs over HTTP.
// Writes are acknowledged once a replica holds them (REDIS_MIN_REPLICAS=1): WAIT must go to the
// master of the bridge's slot, the only one with a replica.
const SCIM_TOKEN = 'cluster-scim-token-0123456789';
const ADMIN_TOKEN = 'cluster-admin-token-0123456789';
const WEBHOOK_SECRET = 'cluster-webhook-secret-0123456789';
const OKTA_SECRET = 'cluster-okta-secret-0123456789';
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const OKTA_FIXTURE = new URL('../fixtures/okta-hooks/user-lifecycle-create.json', import.meta.url);

/** A key prefix whose hash slot another master than `master`'s serves. */
function prefixElsewhere(topology: ClusterTopology, master: number): string {
  for (;;) {
    const prefix = uniquePrefix('elsewhere');
    if (topology.masterFor(prefix).port !== master) return prefix;
  }
}

describe('Redis Cluster: three masters', () => {
  const prefix = uniquePrefix('cluster');
  let topology: ClusterTopology;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  const env = () => ({
    CONFIG_FILE: topology.configFile,
    INBOUND_SCIM_TOKEN: SCIM_TOKEN,
    ADMIN_TOKEN,
    WEBHOOK_SECRET,
    OKTA_HOOK_SECRET: OKTA_SECRET,
    REDIS_MIN_REPLICAS: '1',
  });
  const http = () => request(engine.bridge.http.server);
  const scim = { Authorization: `Bearer ${SCIM_TOKEN}` };
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

  beforeAll(async () => {
    topology = await startClusterTopology({ replicaFor: prefix });
    target = await startTarget();
    engine = await startEngine(target, { ...env(), KEY_PREFIX: prefix });
  });
  afterAll(() =>
    cleanUp(
      () => engine?.close(),
      () => target?.close(),
      () => topology?.stop(),
    ),
  );

  it('takes SCIM push, signed events, Okta hooks and a full sync, and converges', async () => {
    const created = await http()
      .post('/scim/v2/Users')
      .set(scim)
      .send({ schemas: [SCIM_USER], userName: 'push@example.com', active: true, name: { givenName: 'Push' } })
      .expect(201);
    const id = created.body.id as string;
    await http()
      .patch(`/scim/v2/Users/${id}`)
      .set(scim)
      .send({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'name.givenName', value: 'Pushed' }] })
      .expect(200);
    const gone = await http()
      .post('/scim/v2/Users')
      .set(scim)
      .send({ schemas: [SCIM_USER], userName: 'gone@example.com', active: true })
      .expect(201);
    await engine.drain(30_000); // on the platform before it is deleted: then deactivated there
    await http()
      .delete(`/scim/v2/Users/${gone.body.id as string}`)
      .set(scim)
      .expect(204);

    const events = JSON.stringify({
      events: [
        { id: 'e1', type: 'user.upserted', data: { id: 'ev-1', userName: 'event@example.com' } },
        {
          id: 'e2',
          type: 'group.upserted',
          data: { id: 'ev-g', displayName: 'Event group', members: ['ev-1'] },
        },
      ],
    });
    const t = Math.floor(Date.now() / 1000);
    await http()
      .post('/webhooks/events')
      .set('Content-Type', 'application/json')
      .set('X-Bridge-Signature', signatureHeader(WEBHOOK_SECRET, events, t))
      .send(events)
      .expect(202, { accepted: 2, duplicates: 0 });

    await http()
      .post('/webhooks/okta')
      .set('Authorization', OKTA_SECRET)
      .set('Content-Type', 'application/json')
      .send(readFileSync(OKTA_FIXTURE, 'utf8'))
      .expect(200);

    const sync = await http()
      .post('/admin/sync')
      .set(admin)
      .send({ snapshot: snapshotOf(50) })
      .expect(202);
    expect((await settledSync(http, admin, sync.body.jobId as string)).state).toBe('completed');
    await engine.drain(30_000);

    const { missing, extra } = await convergence(engine, target, SCIM_TOKEN, 50);
    expect(missing).toEqual([]);
    expect(extra.sort()).toEqual(['ada.lovelace@example.com', 'event@example.com', 'gone@example.com']);
    expect(target.findUserByUserName('push@example.com')?.name?.givenName).toBe('Pushed');
    expect(target.findUserByUserName('gone@example.com')?.active).toBe(false);
    const group = target.findGroupByDisplayName('Event group');
    expect(group?.members?.map((m) => m.value)).toEqual([target.findUserByUserName('event@example.com')?.id]);
    expect(target.findGroupByDisplayName('Directory group 1')?.members).toHaveLength(25);

    const status = await http().get('/admin/status').set(admin).expect(200);
    expect(status.body.redis).toEqual({
      topology: 'cluster',
      primary: topology.masterFor(prefix).address,
      cluster: { nodes: 4, masters: 3 },
      replicas: 1,
      minReplicas: 1,
      replicaTimeoutMs: 500,
    });
  });

  it('waits for replicas on the master of its own slot: 503 with Retry-After where that master has none', async () => {
    const slotMaster = topology.masterFor(prefix).port;
    const other = prefixElsewhere(topology, slotMaster);
    expect(clusterSlot(other)).not.toBe(clusterSlot(prefix));
    const elsewhere = await startEngine(target, { ...env(), KEY_PREFIX: other });
    try {
      const refused = await request(elsewhere.bridge.http.server)
        .post('/scim/v2/Users')
        .set(scim)
        .send({ schemas: [SCIM_USER], userName: 'unreplicated@example.com', active: true })
        .expect(503);
      expect(refused.headers['retry-after']).toBe('2');
      const events = JSON.stringify({
        id: 'e9',
        type: 'user.upserted',
        data: { id: 'x', userName: 'x@example.com' },
      });
      const signature = signatureHeader(WEBHOOK_SECRET, events, Math.floor(Date.now() / 1000));
      const event = await request(elsewhere.bridge.http.server)
        .post('/webhooks/events')
        .set('Content-Type', 'application/json')
        .set('X-Bridge-Signature', signature)
        .send(events)
        .expect(503);
      expect(event.headers['retry-after']).toBe('2');
      expect(event.body.error.code).toBe('store_unavailable');
      const hook = await request(elsewhere.bridge.http.server)
        .post('/webhooks/okta')
        .set('Authorization', OKTA_SECRET)
        .set('Content-Type', 'application/json')
        .send(readFileSync(OKTA_FIXTURE, 'utf8'))
        .expect(503);
      expect(hook.headers['retry-after']).toBe('2');
    } finally {
      await elsewhere.close();
    }
  });
});
