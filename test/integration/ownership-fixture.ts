import request from 'supertest';
import { expect } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { Env } from '../../src/config/load-config.js';
import { signatureHeader } from '../../src/sources/events/signature.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

/**
 * A bridge with every input on — SCIM push, signed generic events, the admin API (pushed directory
 * snapshots) — against the reference target: real wiring from main.ts, Redis under a fresh prefix,
 * BullMQ workers, HTTP on port 0. What the ownership tests share.
 */

export const ADMIN_TOKEN = 'ownership-admin-token-0123456789';
export const SCIM_TOKEN = 'ownership-scim-token-0123456789';
export const WEBHOOK_SECRET = 'ownership-webhook-secret-0123456';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export const INPUTS_ENV: Env = { ADMIN_TOKEN, INBOUND_SCIM_TOKEN: SCIM_TOKEN, WEBHOOK_SECRET };

export interface Inputs {
  target: ReferenceTarget;
  engine: EngineFixture;
  http(): ReturnType<typeof request>;
  admin(method: 'get' | 'post', path: string): request.Test;
  scim(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string): request.Test;
  /** Signs and posts events to /webhooks/events; expects 202. */
  events(...events: unknown[]): Promise<void>;
  /** Pushes a directory snapshot (POST /admin/sync) and waits for the sync to complete. */
  directory(
    snapshot: { users: unknown[]; groups: unknown[] },
    options?: Record<string, unknown>,
  ): Promise<SyncView>;
  /** Waits for a sync to complete, fail or wait for approval. */
  settle(jobId: string): Promise<SyncView>;
  close(): Promise<void>;
}

export interface SyncView {
  jobId: string;
  state: string;
  summary?: Record<string, unknown>;
  plan?: Record<string, unknown>;
}

export async function startInputs(env: Env = {}, target?: ReferenceTarget): Promise<Inputs> {
  const platform = target ?? (await startTarget());
  const engine = await startEngine(platform, { ...INPUTS_ENV, ...env });
  const http = () => request(engine.bridge.http.server);
  const admin = (method: 'get' | 'post', path: string) =>
    http()[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    target: platform,
    engine,
    http,
    admin,
    scim: (method, path) => http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${SCIM_TOKEN}`),
    events: async (...events) => {
      const raw = JSON.stringify({ events });
      const t = Math.floor(Date.now() / 1000);
      await http()
        .post('/webhooks/events')
        .set('Content-Type', 'application/json')
        .set('X-Bridge-Signature', signatureHeader(WEBHOOK_SECRET, raw, t))
        .send(raw)
        .expect(202);
    },
    directory: async (snapshot, options = {}) => {
      const started = await admin('post', '/admin/sync')
        .send({ snapshot, ...options })
        .expect(202);
      return settled(admin, started.body.jobId as string);
    },
    settle: (jobId) => settled(admin, jobId),
    close: async () => {
      await engine.close();
      if (!target) await platform.close();
    },
  };
}

async function settled(admin: Inputs['admin'], jobId: string): Promise<SyncView> {
  let record: SyncView = { jobId, state: 'queued' };
  await expect
    .poll(
      async () => {
        record = (await admin('get', `/admin/sync/${jobId}`).expect(200)).body as SyncView;
        return ['completed', 'failed', 'awaiting-approval'].includes(record.state);
      },
      { timeout: 30_000, interval: 50 },
    )
    .toBe(true);
  return record;
}

export const scimUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: 'Pushed', familyName: 'By SCIM' },
  emails: [{ value: userName, primary: true, type: 'work' }],
  active: true,
  ...extra,
});

export const userEvent = (
  eventId: string,
  id: string,
  userName: string,
  extra: Record<string, unknown> = {},
) => ({
  id: eventId,
  type: 'user.upserted',
  data: { id, userName, name: { givenName: 'Fed', familyName: 'By Events' }, active: true, ...extra },
});

export const directoryUser = (id: string, userName: string) => ({
  id,
  userName,
  name: { givenName: 'Read', familyName: 'From Directory' },
  emails: [{ value: userName, primary: true }],
  active: true,
});

export interface ConflictBody {
  id: string;
  kind: string;
  status: string;
  identityKind: string;
  claimant: { owner: string | null; id: string; name: string | null };
  holder: { owner: string | null; id: string; name: string | null } | null;
  account: { targetId: string | null; by: string; candidates?: { targetId: string; by: string }[] };
}

export async function conflicts(inputs: Inputs, status = 'open'): Promise<ConflictBody[]> {
  const res = await inputs.admin('get', `/admin/conflicts?status=${status}`).expect(200);
  return res.body.items as ConflictBody[];
}

/** The identity's trace (GET /admin/identities/{kind}/{key}). */
export function trace(inputs: Inputs, kind: 'users' | 'groups', key: string) {
  return inputs.admin('get', `/admin/identities/${kind}/${encodeURIComponent(key)}`);
}
