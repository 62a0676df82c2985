import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { ProvisionResult } from '../../src/admin/schemas/provision.schema.js';
import { startTarget } from '../support/engine.js';
import { GoogleWorkspace } from '../support/google-workspace.js';
import { until } from '../support/until.js';
import {
  ADMIN,
  keyFile,
  seedSmallDirectory,
  startGoogleBridge,
  type GoogleBridge,
  type SmallDirectory,
} from './google-fixture.js';

// Real: the bridge (main.ts wiring: admin API, Redis, BullMQ workers, the google source and its
// change reads every second), configured by environment variables alone (DIRECTORY_SOURCE=google,
// GOOGLE_SERVICE_ACCOUNT_FILE…), the Google Workspace emulation (token endpoint, Directory API,
// Reports API with its visibility lag) and the reference target, over HTTP. After one full sync,
// Google's changes reach the platform through the audit logs alone.
const DELTA_SECONDS = 1;
const OWNER = 'directory:directory';

describe('change reads of Google Workspace (audit logs)', () => {
  let google: GoogleWorkspace;
  let target: ReferenceTarget;
  let bridge: GoogleBridge;
  let key: ReturnType<typeof keyFile>;
  let dir: SmallDirectory;
  const at = (name: string) => `${name}@${google.domain}`;
  const user = (userName: string) => target.users().find((u) => u.userName === userName);
  const group = (displayName: string) => target.groups().find((g) => g.displayName === displayName);
  const watermarkAt = async () => {
    const mark = await bridge.engine.bridge.store.sync.deltas.watermark(OWNER);
    return mark ? Date.parse((JSON.parse(mark.value) as { at: string }).at) : 0;
  };

  beforeAll(async () => {
    google = await GoogleWorkspace.start();
    dir = seedSmallDirectory(google);
    key = keyFile(google);
    target = await startTarget();
    bridge = await startGoogleBridge(target, {
      DIRECTORY_SOURCE: 'google',
      GOOGLE_SERVICE_ACCOUNT_FILE: key.path,
      GOOGLE_ADMIN_SUBJECT: google.adminEmail,
      GOOGLE_API_URL: google.url,
      DIRECTORY_DELTA_SECONDS: String(DELTA_SECONDS),
      DEPROVISION_LIMIT: '2',
    });
    expect(await bridge.run()).toMatchObject({ state: 'completed' });
    expect(target.users()).toHaveLength(7);
    await until('the first delta read', async () => (await watermarkAt()) > 0);
  });
  afterAll(async () => {
    await bridge?.close();
    await target?.close();
    await google?.close();
    key?.remove();
  });

  it('a user suspended in Google is inactive on the platform within two delta intervals plus the log lag', async () => {
    const lagMs = 1000;
    google.setLag(lagMs);
    try {
      expect(user(at('erin'))?.active).toBe(true);
      google.users.suspend(at('erin'));
      // Two intervals and the lag, and a little for the platform write.
      const timeout = 2 * DELTA_SECONDS * 1000 + lagMs + 3000;
      await expect.poll(() => user(at('erin'))?.active, { timeout, interval: 50 }).toBe(false);
    } finally {
      google.setLag(0);
    }
  });

  it("a user added to a nested subgroup by the subgroup's owner (groups_enterprise log) joins the parent on the platform", async () => {
    // ann owns Platform, nested in Engineering; she is no administrator: the record is in groups_enterprise.
    google.groups.addMember(dir.groups.platform, { id: dir.users.frank }, { by: at('ann') });
    expect(
      google.activities('groups_enterprise').map((a) => (a.events as { name: string }[])[0]?.name),
    ).toContain('add_member');
    const frank = () => user(at('frank'))?.id ?? '-';
    const holds = (name: string) => group(name)?.members?.some((m) => m.value === frank()) === true;
    // Each group is reconciled by a job of its own: the parent may be written before the subgroup.
    await expect
      .poll(
        () => ({ engineering: holds('Engineering'), platform: holds('Platform') }),
        // Two delta intervals and the log's lag, then the groups' reconciles: slower under the suite's load.
        { timeout: 15_000 },
      )
      .toEqual({ engineering: true, platform: true });
  });

  it('a renamed primary address updates the one account, never a second one', async () => {
    const before = user(at('ann'));
    expect(before).toBeDefined();
    google.users.rename(at('ann'), at('ann.new'));
    await expect.poll(() => user(at('ann.new'))?.id, { timeout: 8000 }).toBe(before?.id);
    expect(user(at('ann'))).toBeUndefined();
    expect(target.users().filter((u) => u.externalId === dir.users.ann)).toHaveLength(1);
    expect(target.users()).toHaveLength(7);
  });

  it('applies an event the log shows only after later reads have passed its time', async () => {
    const made = google.clock.now();
    google.users.update(at('frank'), { familyName: 'Late' }, { visibleAfterMs: 4000 });
    // Reads go past the event's time while it is not yet in the log.
    await until('a delta read past the hidden event', async () => (await watermarkAt()) > made + 1000, {
      timeoutMs: 3500,
    });
    expect(user(at('frank'))?.name?.familyName).toBe('Tester');
    await expect.poll(() => user(at('frank'))?.name?.familyName, { timeout: 10_000 }).toBe('Late');
  });

  it('provisions one Google user and one group on demand, by primary address', async () => {
    // Seeded: no audit record, so only the provision brings them.
    const gina = google.seed.user({ primaryEmail: at('gina'), givenName: 'Gina', familyName: 'Tester' });
    const team = google.seed.group({ email: at('team'), name: 'Team' });
    google.seed.member(team.id, { id: gina.id, role: 'OWNER' });
    const provision = async (kind: 'users' | 'groups', key: string) =>
      ProvisionResult.parse(
        (
          await request(bridge.engine.bridge.http.server)
            .post(`/admin/identities/${kind}/${encodeURIComponent(key)}/provision`)
            .set({ Authorization: `Bearer ${ADMIN}` })
            .send({})
            .expect(200)
        ).body,
      );
    const one = await provision('users', at('gina'));
    expect(one.steps.read).toMatchObject({ found: true, id: gina.id, label: at('gina') });
    expect(one.steps.applied?.state).toBe('converged');
    expect(user(at('gina'))).toMatchObject({ externalId: gina.id, active: true });
    const both = await provision('groups', at('team'));
    expect(both.steps.read).toMatchObject({ found: true, id: team.id, label: at('team') });
    expect(group('Team')?.members?.map((m) => m.value)).toEqual([user(at('gina'))?.id]);
  });

  it('a watermark the log no longer reaches (180 days) has the input read in full', async () => {
    const before = new Set((await bridge.syncs()).map((s) => s.jobId));
    google.clock.advance(181 * 24 * 3600_000);
    await expect
      .poll(
        async () => (await bridge.syncs()).find((s) => !before.has(s.jobId) && s.trigger === 'delta')?.state,
        {
          timeout: 15_000,
        },
      )
      .toBe('completed');
  });

  it('holds a mass removal through deltas: nothing deprovisioned until approved', async () => {
    const before = new Set((await bridge.syncs()).map((s) => s.jobId));
    for (const name of ['dan', 'frank', 'ann.new']) google.users.delete(at(name));
    let held: { jobId: string; state: string } | undefined;
    await expect
      .poll(
        async () => {
          held = (await bridge.syncs()).find(
            (s) => !before.has(s.jobId) && s.trigger === 'delta' && s.state === 'awaiting-approval',
          );
          return held?.state;
        },
        { timeout: 10_000 },
      )
      .toBe('awaiting-approval');
    expect([at('dan'), at('frank'), at('ann.new')].map((name) => user(name)?.active)).toEqual([
      true,
      true,
      true,
    ]);
  });
});
