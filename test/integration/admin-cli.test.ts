import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src/cli/admin-client.js';
import type { AdminCommandContext } from '../../src/cli/admin-command.js';
import { explainCommand } from '../../src/cli/explain.command.js';
import { failuresCommand } from '../../src/cli/failures.command.js';
import { statusCommand } from '../../src/cli/status.command.js';
import {
  ADMIN_TOKEN,
  BAD_USER,
  failureCount,
  fixBadUserQuietly,
  settledSync,
  snapshotOf,
  startAdminFixture,
  startSync,
  type AdminFixture,
} from './admin-fixture.js';

// Real: the CLI commands' code over HTTP (undici) against a running bridge's admin API, Redis,
// BullMQ workers and the reference target. Only stdout is captured.
describe('scim-bridge status, failures, explain', () => {
  let fixture: AdminFixture;
  let output: string[];
  let context: AdminCommandContext;

  beforeAll(async () => {
    fixture = await startAdminFixture();
    await settledSync(fixture, await startSync(fixture, { snapshot: snapshotOf(3) }));
    await fixture.engine.bridge.store.api.upsertUser(BAD_USER);
    await fixture.engine.drain();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const run = async (command: (c: AdminCommandContext) => Promise<number>) => {
    output = [];
    context = {
      client: new AdminClient({ url: fixture.engine.bridge.http.url, token: ADMIN_TOKEN }),
      write: (text) => output.push(text),
    };
    const code = await command(context);
    return { code, text: output.join('\n') };
  };

  it('status prints target health, counts, queues and the last sync as tables', async () => {
    const { code, text } = await run(statusCommand);
    expect(code).toBe(0);
    expect(text).toMatch(/^Target: reachable/);
    expect(text).toContain('Failures: 1');
    expect(text).toMatch(/desired\s+managed\s+deprovisioned/);
    expect(text).toMatch(/users\s+4\s+3\s+0\n/);
    expect(text).toMatch(/groups\s+2\s+2\s+0\n/);
    expect(text).toMatch(/reconcile\s+0\s+0\s+0\s+0\s+0\s+0\s+1/);
    expect(text).toMatch(/Last full sync: sync-\S+ completed at .*: 5 created/);
    expect(text).toContain('Running sync:   none');
  });

  it('failures lists the failure with its error and detail, filtered', async () => {
    const listed = await run((c) => failuresCommand(c, { limit: 100 }));
    expect(listed.code).toBe(0);
    expect(listed.text).toMatch(
      /user:bad\s+\S*\s+target_invalid_request \(400\)\s+userName must not be empty/,
    );
    expect(listed.text).toContain('1 shown, 1 in failure');
    const groups = await run((c) => failuresCommand(c, { limit: 100, kind: 'group' }));
    expect(groups.text).toBe('No failures match (1 in all).');
  });

  it('explain prints the trace of a failed user, and of a user by userName', async () => {
    const bad = await run((c) => explainCommand(c, 'user', 'bad'));
    expect(bad.code).toBe(0);
    expect(bad.text).toMatch(/^user:bad: failed \(found by id\)/);
    expect(bad.text).toContain('Last error: target_invalid_request (HTTP 400)');
    expect(bad.text).toContain('target detail: userName must not be empty');
    expect(bad.text).toMatch(/request\s+POST \/Users → 400/);
    expect(bad.text).toMatch(/decision\s+create/);

    const byName = await run((c) => explainCommand(c, 'user', 'USER2@example.com'));
    expect(byName.text).toMatch(/^user:u2: in-sync \(found by userName\)/);
    expect(byName.text).toContain('"userName": "user2@example.com"');
    await expect(run((c) => explainCommand(c, 'group', 'no-such-group'))).rejects.toThrow(/404/);
  });

  it('failures --retry enqueues them again; a fixed one leaves the list', async () => {
    await fixBadUserQuietly(fixture);
    const retried = await run((c) => failuresCommand(c, { limit: 100, retry: true }));
    expect(retried.text).toBe('Queued 1 identity for retry.');
    await fixture.engine.drain();
    expect(await failureCount(fixture)).toBe(0);
    expect((await run((c) => failuresCommand(c, { limit: 100 }))).text).toBe('No failures.');
  });

  it('status exits 1 while the target is unhealthy', async () => {
    fixture.target.setToken('a-rotated-token-the-bridge-lacks');
    await fixture.engine.bridge.store.api.upsertUser({
      id: 'u-late',
      userName: 'late@example.com',
      active: true,
    });
    await expect.poll(async () => (await run(statusCommand)).code, { timeout: 15_000 }).toBe(1);
    expect(output.join('\n')).toMatch(/^Target: auth-failed since /);
  });
});
