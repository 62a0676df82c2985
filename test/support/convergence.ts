import type request from 'supertest';
import { Pool } from 'undici';
import type { ReferenceTarget } from 'scim-reference-target';
import type { EngineFixture } from './engine.js';
import { until } from './until.js';

/** A directory snapshot of `count` users in two groups (ids d0…, userNames dir-<n>@example.com). */
export function snapshotOf(count: number) {
  const users = Array.from({ length: count }, (_, n) => ({
    id: `d${n}`,
    userName: `dir-${n}@example.com`,
    name: { givenName: 'Dir', familyName: `User ${n}` },
    emails: [{ value: `dir-${n}@example.com`, primary: true }],
    active: true,
  }));
  return {
    users,
    groups: [0, 1].map((g) => ({
      id: `dg${g}`,
      displayName: `Directory group ${g}`,
      members: users.filter((_, n) => n % 2 === g).map((u) => u.id),
    })),
  };
}

export interface SyncRecordView {
  state: string;
  error?: { code: string; message: string };
}

/** Waits until a sync has ended (completed or failed) or waits for approval, and returns its record. */
export async function settledSync(
  http: () => { get(path: string): request.Test },
  auth: Record<string, string>,
  jobId: string,
  timeoutMs = 60_000,
): Promise<SyncRecordView> {
  return until(
    `sync ${jobId} to end`,
    async () => {
      const res = await http().get(`/admin/sync/${jobId}`).set(auth);
      const body = res.body as SyncRecordView;
      return ['completed', 'failed', 'awaiting-approval'].includes(body.state) ? body : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** Every user the bridge's SCIM server holds (owner scim), as userName → id. */
export async function scimUsers(url: string, token: string): Promise<Map<string, string>> {
  const pool = new Pool(url, { connections: 1 });
  const users = new Map<string, string>();
  try {
    for (let start = 1; ; start += 500) {
      const response = await pool.request({
        method: 'GET',
        path: `/scim/v2/Users?startIndex=${start}&count=500&attributes=userName`,
        headers: { authorization: `Bearer ${token}` },
      });
      const page = (await response.body.json()) as { Resources?: { id: string; userName: string }[] };
      for (const user of page.Resources ?? []) users.set(user.userName, user.id);
      if ((page.Resources ?? []).length < 500) break;
    }
  } finally {
    await pool.close();
  }
  return users;
}

/**
 * What the platform (the reference target) holds against the desired state once the queues have
 * drained: the users pushed over SCIM (read back from the bridge) and those of the directory's
 * last snapshot. `missing`: desired but absent or inactive on the platform; `extra`: on the
 * platform but not desired.
 */
export async function convergence(
  engine: EngineFixture,
  target: ReferenceTarget,
  scimToken: string,
  directoryUsers = 300,
): Promise<{ desired: number; missing: string[]; extra: string[] }> {
  const pushed = await scimUsers(engine.bridge.http.url, scimToken);
  const wanted = new Set([...pushed.keys(), ...snapshotOf(directoryUsers).users.map((u) => u.userName)]);
  const onPlatform = new Map(target.users().map((user) => [user.userName, user]));
  return {
    desired: wanted.size,
    missing: [...wanted].filter((name) => onPlatform.get(name)?.active !== true),
    extra: [...onPlatform.keys()].filter((name) => !wanted.has(name)),
  };
}
