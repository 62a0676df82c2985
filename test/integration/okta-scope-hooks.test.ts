import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startTarget } from '../support/engine.js';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';
import { startOktaBridge, type OktaBridge } from './okta-fixture.js';

// Real: the bridge (main.ts wiring: the hooks' queue and worker, okta's change read of the System
// Log), the Okta emulation delivering Event Hooks over HTTP, and the reference target. What is
// checked: okta's scope and mapping apply to what hooks and the System Log bring, as to a full read.
describe("okta's scope and mapping on its hooks and change read", () => {
  let target: ReferenceTarget;
  let okta: OktaApiServer;
  let bridge: OktaBridge | undefined;
  let dir: string;

  afterEach(async () => {
    await bridge?.close();
    await okta?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('never writes a user outside the scope, pushed by a hook or read from the log, and maps those inside', async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-okta-scope-'));
    const config = join(dir, 'bridge.yaml');
    writeFileSync(
      config,
      [
        'okta:',
        '  scope:',
        '    users: email.endsWith("@corp.example")',
        '  mapping:',
        '    users:',
        '      familyName: lastName.upperAscii()',
        '',
      ].join('\n'),
    );
    target = await startTarget();
    okta = await startOktaApi();
    bridge = await startOktaBridge(target, okta, { env: { CONFIG_FILE: config } });
    const inside = okta.org.createUser({
      login: 'in@corp.example',
      email: 'in@corp.example',
      lastName: 'Lovelace',
    });
    const outside = okta.org.createUser({
      login: 'out@other.example',
      email: 'out@other.example',
      lastName: 'Byron',
    });
    await okta.hooksSettled();
    expect(okta.deliveries().every((d) => d.delivered)).toBe(true);
    await expect
      .poll(() => target.findUserByUserName('in@corp.example')?.name?.familyName, { timeout: 20_000 })
      .toBe('LOVELACE');
    // The System Log has been read past both users' events (its grace for hooks included): still nobody.
    const createdAt = Math.max(...okta.logEvents().map((e) => Date.parse(e.published)));
    await expect
      .poll(async () => ((await bridge?.freshness())?.readAt ?? 0) > createdAt + 4000, { timeout: 20_000 })
      .toBe(true);
    await bridge.engine.drain();
    expect(target.findUserByUserName('out@other.example')).toBeUndefined();
    expect(target.stats().byMethod.POST ?? 0).toBe(1);
    expect(await bridge.engine.bridge.store.desired.getUser(outside.id)).toBeUndefined();
    expect(await bridge.engine.bridge.store.desired.getUser(inside.id)).toMatchObject({ active: true });
  });
});
