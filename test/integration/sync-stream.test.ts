import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { request as http } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: the bridge (main.ts wiring: HTTP admin API, Redis, BullMQ workers), the reference target over
// HTTP. A snapshot pushed as NDJSON is read as a stream and staged as it arrives: larger than the
// JSON body's limit, refused line by line, and never read while another sync runs.
const ADMIN = 'admin-token-for-stream-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };
const NDJSON = 'application/x-ndjson';

const user = (n: number, pad = '') => ({
  id: `u${n}`,
  userName: `user${n}@example.com`,
  name: { givenName: `Given${n}${pad}`, familyName: `Family${n}` },
  emails: [{ value: `user${n}@example.com`, primary: true }],
  active: true,
});
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('a snapshot pushed as NDJSON', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  async function setUp(env: Record<string, string> = {}) {
    target = await startTarget({ pageCap: 100 });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN, ...env });
  }
  const api = () => request(engine.bridge.http.server);
  const push = (body: string) => api().post('/admin/sync').set(auth).set('Content-Type', NDJSON).send(body);
  async function settled(jobId: string, timeout = 30_000) {
    let view: Record<string, unknown> & { state?: string } = {};
    await expect
      .poll(
        async () => {
          view = (await api().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as typeof view;
          return ['completed', 'failed', 'awaiting-approval'].includes(view.state ?? '');
        },
        { timeout, interval: 100 },
      )
      .toBe(true);
    return view as { state: string; plan: Record<string, unknown>; summary: Record<string, unknown> };
  }
  /** The sync keys under the bridge's prefix: records, runs, staging. */
  async function syncKeys(): Promise<string[]> {
    const { redis, keys } = engine.bridge.store;
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${keys.prefix}:sync:*`, 'COUNT', 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found;
  }

  it('takes one larger than the JSON body limit (64 MiB), read as it is sent', async () => {
    await setUp();
    const users = 66_000;
    const pad = 'x'.repeat(1000);
    let sent = 0;
    async function* body() {
      yield line({ options: { dryRun: true } });
      for (let n = 0; n < users; n += 1000) {
        const chunk = Array.from({ length: 1000 }, (_, k) => line({ user: user(n + k, pad) })).join('');
        sent += Buffer.byteLength(chunk);
        yield chunk;
      }
      yield line({ group: { id: 'g-all', displayName: 'Everyone', members: ['u0', `u${users - 1}`] } });
    }
    const response = await http(`${engine.bridge.http.url}/admin/sync`, {
      method: 'POST',
      headers: { ...auth, 'content-type': NDJSON },
      body: Readable.from(body()),
    });
    const answer = (await response.body.json()) as { jobId: string };
    expect(response.statusCode).toBe(202);
    expect(sent).toBeGreaterThan(engine.bridge.config.http.snapshotLimitBytes);
    const view = await settled(answer.jobId, 90_000);
    expect(view).toMatchObject({
      state: 'completed',
      plan: { users: { create: users }, groups: { create: 1 }, source: { name: 'snapshot', users } },
    });
    // The record keeps a sample of the plan, never the plan: the changes are counted, 100 are shown.
    expect(view.plan.changes).toHaveLength(100);
    expect(view.plan.changesOmitted).toBe(users + 1 - 100);
    // A dry run: nothing written; its staging went with it.
    expect(await engine.bridge.store.desired.getUser('u0')).toBeUndefined();
    expect((await syncKeys()).filter((key) => key.includes(`${answer.jobId}:`))).toEqual([]);
  }, 120_000);

  it('takes the JSON Lines type (application/jsonl) as NDJSON; a 415 for another names what is taken', async () => {
    await setUp();
    const body = line({ options: { dryRun: true } }) + line({ user: user(1) }) + line({ user: user(2) });
    for (const type of ['application/jsonl', 'application/ndjson', 'application/jsonl; charset=utf-8']) {
      const started = await api()
        .post('/admin/sync')
        .set(auth)
        .set('Content-Type', type)
        .send(body)
        .expect(202);
      const view = await settled(started.body.jobId as string);
      expect(view).toMatchObject({ state: 'completed', plan: { users: { create: 2 } } });
    }
    const refused = await api().post('/admin/sync').set(auth).set('Content-Type', 'text/plain').send(body);
    expect(refused.status).toBe(415);
    expect(refused.body.error.code).toBe('unsupported_media_type');
    for (const type of [
      'application/json',
      'application/x-ndjson',
      'application/ndjson',
      'application/jsonl',
    ])
      expect(refused.body.error.message).toContain(type);
  });

  it('refuses an invalid line with 400 naming it, and changes nothing', async () => {
    await setUp();
    const first = (await push(line({ user: user(0) })).expect(202)).body.jobId as string;
    expect((await settled(first)).state).toBe('completed');
    const before = await syncKeys();
    const cases: [string, RegExp][] = [
      [line({ user: user(1) }) + line({ user: { id: 'u2' } }), /^line 2: users\[1\]\.userName: required$/],
      [line({ user: user(1) }) + '{"user": \n', /^line 2: not JSON/],
      [line({ person: user(1) }), /^line 1: expected \{"user": \{…\}\} or \{"group": \{…\}\}$/],
      [
        line({ constructor: { id: 'g', displayName: 'G', members: [] } }),
        /^line 1: expected \{"user": \{…\}\} or \{"group": \{…\}\}$/,
      ],
      [line({ options: { dryRun: 'yes' } }), /^line 1: options\.dryRun: /],
      [
        line({ user: user(1) }) + line({ options: { dryRun: true } }),
        /^line 2: an \{"options": …\} line may only be/,
      ],
    ];
    for (const [body, problem] of cases) {
      const res = await push(body).expect(400);
      expect(res.body.error.code).toBe('invalid_input');
      expect(res.body.error.problems[0]).toMatch(problem);
    }
    // No sync record left running, no staging left behind, the desired state as it was.
    expect(await engine.bridge.store.syncs.records.activeSyncId()).toBeUndefined();
    expect((await api().get('/admin/sync').set(auth).expect(200)).body.syncs).toHaveLength(1);
    expect((await syncKeys()).sort()).toEqual(before.sort());
    expect(await engine.bridge.store.desired.getUser('u1')).toBeUndefined();
    expect(await engine.bridge.store.desired.getUser('u0')).toBeDefined();
  });

  it('refuses a bad line after thousands of good ones without leaving their staging behind', async () => {
    await setUp();
    const good = Array.from({ length: 3000 }, (_, n) => line({ user: user(n) })).join('');
    // The batches before the bad line are still being checked and staged when it is found.
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await push(`${good}garbage\n`).expect(400);
      expect(res.body.error.problems).toEqual([expect.stringMatching(/^line 3001: not JSON/)]);
      expect(await syncKeys()).toEqual([]);
    }
  });

  it('leaves nothing behind when a client sending gzip goes away mid-body', async () => {
    await setUp();
    const lines = Array.from({ length: 20_000 }, (_, n) => line({ user: user(n) })).join('');
    const gzipped = gzipSync(lines);
    const url = new URL(`${engine.bridge.http.url}/admin/sync`);
    const req = httpRequest(url, {
      method: 'POST',
      headers: { ...auth, 'content-type': NDJSON, 'content-encoding': 'gzip' },
    });
    req.on('error', () => undefined);
    req.write(gzipped.subarray(0, gzipped.length / 2));
    // Some of it staged, then the connection closes before the body ends.
    await expect.poll(async () => (await syncKeys()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    req.destroy();
    await expect.poll(syncKeys, { timeout: 10_000 }).toEqual([]);
    expect((await push(line({ user: user(0) })).expect(202)).body.jobId).toMatch(/^sync-/);
  });

  it('refuses duplicates and unknown members across batches, named by line', async () => {
    await setUp();
    const users = Array.from({ length: 2500 }, (_, n) => line({ user: user(n) }));
    users[2400] = line({ user: { ...user(2400), id: 'u1' } });
    const groups = line({ group: { id: 'g', displayName: 'G', members: ['u7', 'nobody'] } });
    const res = await push(groups + users.join('')).expect(400);
    expect(res.body.error.message).toBe('Invalid snapshot: 2 problems');
    expect(res.body.error.problems).toEqual([
      'line 2402: users[2400].id: duplicate of users[1] (line 3)',
      'line 1: groups[0].members[1]: unknown user "nobody": in neither the snapshot nor another input',
    ]);
    expect(await syncKeys()).toEqual([]);
  });

  it('refuses a body over SNAPSHOT_STREAM_LIMIT_BYTES with 413, leaving nothing', async () => {
    await setUp({ SNAPSHOT_STREAM_LIMIT_BYTES: '4096' });
    const body = Array.from({ length: 100 }, (_, n) => line({ user: user(n) })).join('');
    const res = await push(body).expect(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large' });
    expect(res.body.error.message).toContain('SNAPSHOT_STREAM_LIMIT_BYTES');
    expect(await syncKeys()).toEqual([]);
  });

  it('answers 409 naming the running sync before reading the body', async () => {
    await setUp({ DEPROVISION_LIMIT: '1' });
    const all = Array.from({ length: 5 }, (_, n) => line({ user: user(n) })).join('');
    expect((await settled((await push(all).expect(202)).body.jobId)).state).toBe('completed');
    const held = (await push(line({ user: user(0) })).expect(202)).body.jobId as string;
    expect((await settled(held)).state).toBe('awaiting-approval');
    // A body that would take long to send: only its first bytes are read.
    let produced = 0;
    async function* endless() {
      for (let n = 0; n < 1_000_000; n++) {
        const text = line({ user: user(n) });
        produced += text.length;
        yield text;
      }
    }
    const response = await http(`${engine.bridge.http.url}/admin/sync`, {
      method: 'POST',
      headers: { ...auth, 'content-type': NDJSON },
      body: Readable.from(endless()),
    });
    expect(response.statusCode).toBe(409);
    const answer = (await response.body.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe('conflict');
    expect(answer.error.message).toContain(held);
    expect(produced).toBeLessThan(10_000_000);
    await api().post(`/admin/sync/${held}/cancel`).set(auth).expect(202);
  });
});
