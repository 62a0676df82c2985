import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startTarget } from '../support/engine.js';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';
import { seedUsers, startOktaBridge, type OktaBridge } from './okta-fixture.js';

// Real: the bridge (main.ts wiring, its sync scheduler on BullMQ), a directory file, the Okta
// emulation's API and the reference target over HTTP. What is checked: SYNC_SCHEDULE syncs every
// input that can be read in full, the directory first, then okta, each in its own sync slot.
describe('the scheduled round', () => {
  let target: ReferenceTarget;
  let okta: OktaApiServer;
  let bridge: OktaBridge;
  let dir: string;

  afterEach(async () => {
    await bridge?.close();
    await okta?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('syncs the directory and okta, each in its own slot', async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-schedule-'));
    const file = join(dir, 'directory.json');
    writeFileSync(file, JSON.stringify({ users: [{ id: 'd-1', userName: 'dir@example.com' }], groups: [] }));
    target = await startTarget();
    okta = await startOktaApi();
    seedUsers(okta);
    bridge = await startOktaBridge(target, okta, {
      hooks: false,
      env: {
        OKTA_LOG_POLL_SECONDS: '0',
        DIRECTORY_SOURCE: 'file',
        DIRECTORY_FILE: file,
        SYNC_SCHEDULE: '*/3 * * * * *',
      },
    });
    const syncs = bridge.engine.bridge.store.syncs;
    await expect
      .poll(
        async () => {
          const scheduled = (await syncs.list(20)).filter((s) => s.trigger === 'schedule');
          return ['directory:directory', 'okta'].every((input) =>
            scheduled.some((s) => s.owner === input && s.state === 'completed'),
          );
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    const round = (await syncs.list(20)).filter((s) => s.trigger === 'schedule').reverse();
    expect(round[0]?.owner).toBe('directory:directory');
    expect(target.findUserByUserName('dir@example.com')).toBeDefined();
    expect(target.findUserByUserName('user0@corp.example')).toBeDefined();
  });
});
