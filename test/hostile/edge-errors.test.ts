import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/sources/events/signature.js';
import {
  fresh,
  startHostileBridge,
  userEvent,
  WEBHOOK_SECRET,
  type HostileBridge,
} from './bridge-fixture.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Sends raw request bytes (what no well-behaved client would send) and reads the answer. */
function rawRequest(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
      resolve({ status, body: answer.slice(answer.indexOf('\r\n\r\n') + 4) });
    });
  });
}

// Real: the whole bridge (Redis, BullMQ, HTTP on port 0) against the reference target, and a child
// Node process for the process-level guard. Each request here is the client's fault (a 4xx with
// a JSON or SCIM error body), or fails in Redis for itself alone (a 5xx, and the next one works).
describe('errors at the edge', () => {
  let bridge: HostileBridge;
  const port = () => bridge.engine.bridge.http.port;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('answers a Host header that is no host with a SCIM 400, also before authentication', async () => {
    for (const auth of ['', 'Authorization: Bearer wrong-token\r\n']) {
      const res = await rawRequest(
        port(),
        `GET /scim/v2/Users HTTP/1.1\r\nHost: a b\r\n${auth}Connection: close\r\n\r\n`,
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ status: '400', detail: 'The Host header is not a host' });
    }
  });

  it('answers malformed %-escapes in a path with 400, in JSON or SCIM form', async () => {
    const ui = await bridge.http().get('/admin/ui/assets/%E0%A4%A');
    expect(ui.status).toBe(400);
    expect(ui.body.error).toEqual({ code: 'invalid_input', message: 'The path holds a malformed %-escape' });
    const scim = await bridge.scim('get', '/Users/%E0%A4%A');
    expect(scim.status).toBe(400);
    expect(scim.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
    });
    const admin = await bridge.admin('get', '/admin/identities/users/%ZZ');
    expect(admin.status).toBe(400);
  });

  it('answers a corrupt gzip or deflate body with a fresh signature with 400', async () => {
    const body = JSON.stringify(userEvent(fresh('e'), fresh('u')));
    const gzip = gzipSync(body);
    const corrupt = Buffer.concat([gzip.subarray(0, 12), Buffer.from('not deflate data at all')]);
    for (const encoding of ['gzip', 'deflate']) {
      const t = Math.floor(Date.now() / 1000);
      const res = await bridge
        .http()
        .post('/webhooks/events')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .set('X-Bridge-Signature', signatureHeader(WEBHOOK_SECRET, corrupt, t))
        .send(corrupt);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
    }
  });

  it('checks sync ids before reading Redis: /admin/sync/runs and other words are 404, not 500', async () => {
    // Once a sync ran, P:sync:runs (the history) exists beside the records: reading it as one is WRONGTYPE.
    const started = await bridge.admin('post', '/admin/sync').send({ dryRun: true }).expect(202);
    const jobId = started.body.jobId as string;
    await expect
      .poll(async () => (await bridge.admin('get', `/admin/sync/${jobId}`)).body.state)
      .toBe('completed');
    expect(await bridge.engine.bridge.store.redis.type(bridge.engine.bridge.store.keys.syncRuns())).toBe(
      'zset',
    );
    for (const [method, path] of [
      ['get', '/admin/sync/runs'],
      ['get', '/admin/sync/active'],
      ['post', '/admin/sync/runs/approve'],
      ['post', '/admin/sync/runs/cancel'],
    ] as const) {
      const res = await bridge.admin(method, path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('refuses identity keys no identity can have before enqueueing anything', async () => {
    for (const key of ['user:', 'group:a\nb', 'robot:x']) {
      const res = await bridge.admin('post', '/admin/failures/retry').send({ keys: [key] });
      expect([key, res.status, res.body.error?.code]).toEqual([key, 400, 'invalid_input']);
    }
  });

  it('bounds every numeric admin query parameter with a 400', async () => {
    for (const path of [
      '/admin/sync?limit=1e21',
      '/admin/sync?limit=abc',
      '/admin/sync?limit=0',
      '/admin/sync?limit=101',
      '/admin/failures?cursor=1e21',
      '/admin/failures?limit=9999999999999999999999',
    ]) {
      const res = await bridge.admin('get', path);
      expect([path, res.status, res.body.error?.code]).toEqual([path, 400, 'invalid_input']);
    }
    expect((await bridge.admin('get', '/admin/sync?limit=100')).status).toBe(200);
  });

  it('fails a request that fails inside Redis with a 5xx for itself alone', async () => {
    const { redis, keys } = bridge.engine.bridge.store;
    const id = fresh('u');
    await bridge.engine.bridge.store.api.upsertUser({ id, userName: `${id}@example.com`, active: true });
    // Not the type the store keeps there: every read of this one identity fails in Redis.
    await redis.del(keys.doc('user', id));
    await redis.hset(keys.doc('user', id), 'not', 'a string');
    const broken = await bridge.admin('get', `/admin/identities/users/${id}`);
    expect(broken.status).toBe(500);
    expect(broken.body.error).toEqual({ code: 'internal', message: 'Internal error' });
    expect((await bridge.http().get('/healthz')).status).toBe(200);
    expect((await bridge.admin('get', '/admin/status')).status).toBe(200);
    await redis.del(keys.doc('user', id));
  });

  it('logs an unhandled rejection and keeps the process serving', async () => {
    const script = [
      "const { keepServingOnUnhandledRejections } = await import('./src/ops/shutdown.ts');",
      "const { createLogger } = await import('./src/ops/logger.ts');",
      "keepServingOnUnhandledRejections(createLogger({ level: 'info', pretty: false }));",
      "Promise.reject(new Error('a stray rejection'));",
      // Timers run after Node has handled the rejection: without the guard, this never prints.
      "setTimeout(() => console.log('still serving'), 0);",
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(output).toContain('unhandled promise rejection: logged, the process keeps serving');
    expect(output).toContain('a stray rejection');
    expect(output).toContain('still serving');
  });
});
