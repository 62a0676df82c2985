import { utimesSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { expect } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { EngineFixture } from '../support/engine.js';

/**
 * What the tests of full syncs over a file directory share: its people, the file written with a
 * fixed mtime (only its content tells a change), a sync run through the admin API to its end, and
 * the writes the platform received.
 */

export const person = (id: string, givenName: string, familyName: string) => ({
  id,
  userName: `${id}@example.com`,
  name: { givenName, familyName },
  emails: [{ value: `${id}@example.com`, primary: true }],
  active: true,
});

const MTIME = new Date('2026-01-01T00:00:00Z');

/** Writes the directory file with a fixed mtime, so that only its content tells a change. */
export function writeDirectoryFile(file: string, text: string): void {
  writeFileSync(file, text);
  utimesSync(file, MTIME, MTIME);
}

export type Counts = Record<'create' | 'update' | 'deprovision', number>;
export const NONE: Counts = { create: 0, update: 0, deprovision: 0 };

/**
 * Starts a full sync (`body` as POST /admin/sync takes it), waits until it completed and the
 * platform holds what it applied, and returns its record. The target's request stats start afresh.
 */
export async function completedSync<R extends { state: string }>(
  engine: EngineFixture,
  auth: Record<string, string>,
  body: object = {},
): Promise<R> {
  engine.target.resetStats();
  const http = () => request(engine.bridge.http.server);
  const { jobId } = (await http().post('/admin/sync').set(auth).send(body).expect(202)).body as {
    jobId: string;
  };
  let record = { state: '' } as R;
  await expect
    .poll(
      async () => {
        record = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as R;
        return ['completed', 'failed', 'awaiting-approval'].includes(record.state);
      },
      { timeout: 20_000, interval: 50 },
    )
    .toBe(true);
  expect(record.state).toBe('completed');
  await engine.drain();
  return record;
}

/** The writes the platform received since its stats were reset, as "METHOD /route". */
export function platformWrites(target: ReferenceTarget): string[] {
  return target
    .stats()
    .requests.filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.route}`);
}
