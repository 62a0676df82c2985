import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { ProvisionResult } from '../../src/admin/schemas/provision.schema.js';
import { startTarget } from '../support/engine.js';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';
import { ADMIN, seedUsers, startOktaBridge, type OktaBridge } from './okta-fixture.js';

// Real: the bridge (main.ts wiring: admin API, Redis, BullMQ workers) with the okta input under a
// scope by group membership (CONFIG_FILE), the Okta emulation's management API and the reference
// target, both over HTTP. No hooks, no System Log. What is checked: one Okta user provisioned on
// demand (a dry run that writes nothing, then for real: its request alone), read by its id with
// its groups; a user out of scope and a DEPROVISIONED one reported, not applied; a group with its
// members; an id Okta does not know is a 404.
const auth = { Authorization: `Bearer ${ADMIN}` };
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ENGINEERING = '00gengineering0000001';

describe('provision on demand from Okta', () => {
  let dir: string;
  let target: ReferenceTarget;
  let okta: OktaApiServer;
  let bridge: OktaBridge;
  let ids: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-provision-okta-'));
    writeFileSync(join(dir, 'config.yaml'), `okta:\n  scope:\n    users: 'memberOf("Engineering")'\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    target = await startTarget();
    okta = await startOktaApi({ pageSize: 3 });
    ids = seedUsers(okta);
    okta.setGroup({ id: ENGINEERING, name: 'Engineering' });
    for (const id of ids.slice(0, 5)) okta.addMember(ENGINEERING, id);
    okta.setUser({
      id: '00ugone00000000000001',
      status: 'DEPROVISIONED',
      profile: { login: 'gone@corp.example' },
    });
    bridge = await startOktaBridge(target, okta, {
      hooks: false,
      env: { OKTA_LOG_POLL_SECONDS: '0', CONFIG_FILE: join(dir, 'config.yaml') },
    });
  });
  afterEach(async () => {
    await bridge.close();
    await okta.close();
    await target.close();
  });

  const provision = async (kind: 'users' | 'groups', key: string, body: object = {}, status = 200) =>
    (
      await request(bridge.engine.bridge.http.server)
        .post(`/admin/identities/${kind}/${key}/provision`)
        .set(auth)
        .send(body)
        .expect(status)
    ).body as ProvisionResult & { error?: { message: string } };
  const writes = (from = 0) =>
    target
      .stats()
      .requests.slice(from)
      .filter((r) => WRITES.has(r.method))
      .map((r) => `${r.method} ${r.route}`);

  it('provisions one Okta user in the scope: a dry run, then for real', async () => {
    const id = ids[1] ?? '';
    const dry = ProvisionResult.parse(await provision('users', id, { dryRun: true }));
    expect(dry).toMatchObject({ input: 'okta', kind: 'user', key: id });
    expect(dry.steps.read).toMatchObject({
      found: true,
      id,
      label: 'user1@corp.example',
      source: expect.stringContaining("Okta's API"),
    });
    expect(dry.steps.scope).toMatchObject({ outcome: 'in-scope', setting: 'okta.scope.users' });
    expect(dry.steps.mapping).toMatchObject({
      outcome: 'mapped',
      identity: { userName: 'user1@corp.example', active: true },
    });
    expect(dry.steps.action.action).toBe('create');
    expect(writes()).toEqual([]);
    expect(okta.requests().map((r) => r.path)).toEqual([`/api/v1/users/${id}`, `/api/v1/users/${id}/groups`]);

    const real = ProvisionResult.parse(await provision('users', id));
    expect(real.steps.applied).toMatchObject({
      state: 'converged',
      identities: [{ id, write: 'created', result: 'created' }],
    });
    expect(writes()).toEqual(['POST /Users']);
    expect(target.users().map((u) => u.externalId)).toEqual([id]);
  });

  it('reports a user out of scope and a DEPROVISIONED one, applies neither; a 404 for an unknown id', async () => {
    const out = ProvisionResult.parse(await provision('users', ids[7] ?? ''));
    expect(out.steps.scope).toMatchObject({
      outcome: 'out-of-scope',
      reason: 'okta.scope.users is false for it',
    });
    expect(out.steps.applied?.state).toBe('not-applied');
    const gone = ProvisionResult.parse(await provision('users', '00ugone00000000000001'));
    expect(gone.steps.scope).toEqual({
      outcome: 'out-of-scope',
      reason: 'DEPROVISIONED in Okta: a full read of Okta leaves it out',
    });
    const missing = await provision('users', '00unobody000000000001', {}, 404);
    expect(missing.error?.message).toContain('Okta has no user 00unobody000000000001');
    expect(writes()).toEqual([]);
  });

  it('provisions a group with its members', async () => {
    const real = ProvisionResult.parse(await provision('groups', ENGINEERING));
    expect(real.steps.members).toMatchObject({ total: 5, inScope: 5 });
    expect(real.steps.applied).toMatchObject({ state: 'converged', total: 6 });
    const all = writes();
    expect(all.filter((w) => w === 'POST /Users')).toHaveLength(5);
    expect(all.filter((w) => w !== 'POST /Users')).toEqual(['POST /Groups']);
    expect(target.findGroupByDisplayName('Engineering')?.members).toHaveLength(5);
  });
});
