import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: the bridge (main.ts wiring), an upstream SCIM server (a second reference target, with its
// own token) read by the `scim` directory source, and the platform's reference target. What is
// checked: a refused credential is told apart from an outage — the sync fails `source_unauthorized`
// and the input's status says refused — and a credential rotated in its file applies without a restart.
const ADMIN = 'admin-token-refused-0001';

describe('a directory whose credential is refused', () => {
  let upstream: ReferenceTarget;
  let target: ReferenceTarget;
  let engine: EngineFixture | undefined;
  let dir: string;

  afterEach(async () => {
    await engine?.close();
    await upstream?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows as refused, not unavailable, and reads again once the token file holds the right token', async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-refused-'));
    const tokenFile = join(dir, 'upstream-token');
    writeFileSync(tokenFile, 'an-expired-upstream-token-0001\n');
    upstream = await startTarget({ token: 'the-upstream-token-0000000001' });
    upstream.insertUser({ userName: 'ada@upstream.example', externalId: 'up-ada' });
    target = await startTarget();
    engine = await startEngine(target, {
      ADMIN_TOKEN: ADMIN,
      DIRECTORY_SOURCE: 'scim',
      SOURCE_SCIM_URL: upstream.scimUrl,
      SOURCE_SCIM_TOKEN_FILE: tokenFile,
      DIRECTORY_DELTA_SECONDS: '0',
    });
    const http = () => request(engine!.bridge.http.server);
    const sync = async () => {
      const { jobId } = (
        await http().post('/admin/sync').set('Authorization', `Bearer ${ADMIN}`).send({}).expect(202)
      ).body as { jobId: string };
      let view: { state: string; error?: { code: string; message: string } } = { state: 'queued' };
      await expect
        .poll(
          async () => {
            view = (await http().get(`/admin/sync/${jobId}`).set('Authorization', `Bearer ${ADMIN}`)).body;
            return ['completed', 'failed'].includes(view.state);
          },
          { timeout: 20_000, interval: 50 },
        )
        .toBe(true);
      return view;
    };
    const input = async () =>
      (
        (await http().get('/admin/status').set('Authorization', `Bearer ${ADMIN}`).expect(200)).body
          .inputs as {
          input: string;
          state: string;
          lastError: string | null;
        }[]
      ).find((i) => i.input === 'directory:directory');

    const refused = await sync();
    expect(refused).toMatchObject({ state: 'failed', error: { code: 'source_unauthorized' } });
    expect(refused.error?.message).not.toContain('expired-upstream-token');
    expect(await input()).toMatchObject({
      state: 'refused',
      lastError: expect.stringMatching(/refused|401/),
    });
    expect(target.stats().total).toBe(0);

    // Rotated in its file (as a Kubernetes Secret volume is): the next read takes it, no restart.
    writeFileSync(tokenFile, 'the-upstream-token-0000000001\n');
    await expect.poll(async () => (await sync()).state, { timeout: 20_000, interval: 200 }).toBe('completed');
    await engine.drain();
    expect(target.findUserByUserName('ada@upstream.example')).toBeDefined();
    expect(await input()).toMatchObject({ state: 'ok' });
  });
});
