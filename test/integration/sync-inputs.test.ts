import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: the bridge (main.ts wiring: HTTP admin API, Redis, BullMQ workers, the file directory source
// on a real temporary file), the reference target over HTTP. What is checked: POST /admin/sync reads
// the input it names, defaults to the configured directory, and refuses a name it cannot read in full.
const ADMIN = 'admin-token-for-input-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };

const directory = {
  users: [
    { id: 'u1', userName: 'ada@example.com', active: true },
    { id: 'u2', userName: 'grace@example.com', active: true },
  ],
  groups: [{ id: 'g1', displayName: 'Engineering', members: ['u1'] }],
};

describe('full syncs by input', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let dir: string | undefined;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function setUp(env: Record<string, string>) {
    target = await startTarget({ pageCap: 100 });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN, ...env });
  }
  function withFile(): Record<string, string> {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-inputs-'));
    const path = join(dir, 'directory.json');
    writeFileSync(path, JSON.stringify(directory));
    return { DIRECTORY_SOURCE: 'file', DIRECTORY_FILE: path };
  }
  const http = () => request(engine.bridge.http.server);
  async function settled(jobId: string) {
    let view: { state: string; summary?: Record<string, unknown> } = { state: '' };
    await expect
      .poll(
        async () => {
          view = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as typeof view;
          return ['completed', 'failed', 'awaiting-approval'].includes(view.state);
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe(true);
    return view;
  }

  it('reads the directory when it is named, as when no input is named', async () => {
    await setUp(withFile());
    const named = await http()
      .post('/admin/sync')
      .set(auth)
      .send({ input: 'directory:directory' })
      .expect(202);
    expect(await settled(named.body.jobId as string)).toMatchObject({ state: 'completed' });
    expect(
      target
        .users()
        .map((u) => u.userName)
        .sort(),
    ).toEqual(['ada@example.com', 'grace@example.com']);

    target.resetStats();
    const unnamed = await http().post('/admin/sync').set(auth).send({}).expect(202);
    expect(await settled(unnamed.body.jobId as string)).toMatchObject({ state: 'completed' });
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses an input it cannot read in full with 400, naming those it can, and starts nothing', async () => {
    await setUp(withFile());
    for (const input of ['nonexistent', 'scim', 'directory:other']) {
      const res = await http().post('/admin/sync').set(auth).send({ input }).expect(400);
      expect(res.body.error.code).toBe('invalid_input');
      expect(res.body.error.message).toContain(JSON.stringify(input));
      expect(res.body.error.message).toContain('directory:directory');
    }
    const { body } = await http().get('/admin/sync').set(auth).expect(200);
    expect(body.syncs).toEqual([]);
    expect(target.stats().total).toBe(0);
  });

  it('with no directory configured, says no input can be read, and still reconciles the desired state', async () => {
    await setUp({});
    const res = await http().post('/admin/sync').set(auth).send({ input: 'directory:directory' }).expect(400);
    expect(res.body.error.message).toMatch(/none is configured/);
    const started = await http().post('/admin/sync').set(auth).send({}).expect(202);
    expect(await settled(started.body.jobId as string)).toMatchObject({ state: 'completed' });
  });

  it('refuses a snapshot pushed for another input than the directory', async () => {
    await setUp({});
    const res = await http()
      .post('/admin/sync')
      .set(auth)
      .send({ input: 'okta', snapshot: directory })
      .expect(400);
    expect(res.body.error.problems).toEqual([expect.stringMatching(/^input: a snapshot is the directory's/)]);
    expect(await engine.bridge.store.desired.getUser('u1')).toBeUndefined();
  });
});
