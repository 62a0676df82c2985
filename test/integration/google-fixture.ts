import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { Env } from '../../src/config/load-config.js';
import type { Logger } from '../../src/ops/logger.js';
import { startEngine, type EngineFixture } from '../support/engine.js';
import type { GoogleWorkspace } from '../support/google-workspace.js';
import { until } from '../support/until.js';

// A bridge wired as main.ts wires it (HTTP, Redis, BullMQ workers, the input reads) with a google
// directory source against the Google Workspace emulation (test/support/google-workspace.ts).
export const ADMIN = 'admin-token-for-google-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };

export interface SyncView {
  jobId: string;
  state: string;
  trigger: string;
  input?: string;
  plan?: Record<string, unknown> & { holdReasons?: string[] };
  error?: { code: string; message: string };
}

export interface GoogleBridge {
  engine: EngineFixture;
  /** POST /admin/sync; returns the job id. */
  sync(body?: Record<string, unknown>): Promise<string>;
  /** Waits for a sync to settle (completed, failed or awaiting approval). */
  settled(jobId: string): Promise<SyncView>;
  /** A sync run to its end, and the reconciliation after it. */
  run(body?: Record<string, unknown>): Promise<SyncView>;
  syncs(): Promise<SyncView[]>;
  close(): Promise<void>;
}

export async function startGoogleBridge(
  target: ReferenceTarget,
  env: Env,
  logger?: Logger,
): Promise<GoogleBridge> {
  const engine = await startEngine(target, { ADMIN_TOKEN: ADMIN, ...env }, logger ? { logger } : {});
  const http = () => request(engine.bridge.http.server);
  const view = async (jobId: string) =>
    (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as SyncView;
  const sync = async (body: Record<string, unknown> = {}) =>
    ((await http().post('/admin/sync').set(auth).send(body).expect(202)).body as { jobId: string }).jobId;
  const settled = (jobId: string) =>
    until(
      `sync ${jobId} to settle`,
      async () => {
        const last = await view(jobId);
        return ['completed', 'failed', 'awaiting-approval'].includes(last.state) ? last : undefined;
      },
      { timeoutMs: 30_000 },
    );
  return {
    engine,
    sync,
    settled,
    run: async (body) => {
      const settledView = await settled(await sync(body));
      await engine.drain();
      return settledView;
    },
    syncs: async () =>
      ((await http().get('/admin/sync').set(auth).expect(200)).body as { syncs: SyncView[] }).syncs,
    close: () => engine.close(),
  };
}

/** A temporary folder for a key file and a config file, as a Kubernetes volume holds them. */
export interface Files {
  /** Writes a file in the folder; returns its path. */
  write(name: string, text: string): string;
  remove(): void;
}

export function tempFiles(): Files {
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-google-'));
  return {
    write: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The service account's key written to a file. */
export function keyFile(google: GoogleWorkspace): { path: string; remove(): void } {
  const files = tempFiles();
  return { path: files.write('service-account.json', google.keyFile()), remove: () => files.remove() };
}

/**
 * A CONFIG_FILE (JSON is YAML) with `directories:` items of the google source against the
 * emulation, each `{name, google?: extra settings, scope?}`; no deltas unless given.
 */
export function directoriesConfig(
  files: Files,
  google: GoogleWorkspace,
  items: readonly { name: string; google?: Record<string, unknown>; [key: string]: unknown }[],
): string {
  const serviceAccountFile = files.write('service-account.json', google.keyFile());
  const directories = items.map(({ google: extra, ...item }) => ({
    source: 'google',
    deltaSeconds: 0,
    ...item,
    google: { serviceAccountFile, adminSubject: google.adminEmail, apiUrl: google.url, ...extra },
  }));
  return files.write('config.yaml', JSON.stringify({ directories }, null, 2));
}

export interface SmallDirectory {
  users: Record<'admin' | 'ann' | 'bob' | 'carol' | 'dan' | 'erin' | 'frank', string>;
  groups: Record<'eng' | 'platform' | 'sales' | 'everyone' | 'loopA' | 'loopB', string>;
}

/**
 * A small account, seeded (no audit records), with every case a reader must get right:
 * Engineering ⊃ Platform (nested; erin a MANAGER of Engineering, ann the OWNER of Platform), a
 * member outside the account and another customer's subgroup; Sales with a member added by an
 * alias; Everyone with a CUSTOMER member; a cycle Loop A ⊃ Loop B ⊃ Loop A; bob suspended, carol
 * archived; org units /Engineering, /Engineering/Platform, /Sales, /Support.
 */
export function seedSmallDirectory(google: GoogleWorkspace): SmallDirectory {
  const d = google.domain;
  const user = (name: string, orgUnitPath: string, extra: Record<string, unknown> = {}) =>
    google.seed.user({
      primaryEmail: `${name}@${d}`,
      givenName: name,
      familyName: 'Tester',
      orgUnitPath,
      ...extra,
    }).id;
  const users = {
    admin: google.model.user(google.adminEmail)?.id as string,
    ann: user('ann', '/Engineering'),
    bob: user('bob', '/Engineering/Platform', { suspended: true }),
    carol: user('carol', '/Sales', { archived: true }),
    dan: user('dan', '/Sales', { aliases: [`daniel@${d}`] }),
    erin: user('erin', '/Engineering'),
    frank: user('frank', '/Support', { customSchemas: { Employment: { costCenter: 'CC7' } } }),
  };
  const group = (name: string, title: string) => google.seed.group({ email: `${name}@${d}`, name: title }).id;
  const groups = {
    eng: group('eng', 'Engineering'),
    platform: group('platform', 'Platform'),
    sales: group('sales', 'Sales'),
    everyone: group('everyone', 'Everyone'),
    loopA: group('loop-a', 'Loop A'),
    loopB: group('loop-b', 'Loop B'),
  };
  google.seed.member(groups.eng, { id: groups.platform, type: 'GROUP' });
  google.seed.member(groups.eng, { id: users.erin, role: 'MANAGER' });
  google.seed.member(groups.eng, { email: 'partner@partner.example' });
  google.seed.member(groups.platform, { id: users.ann, role: 'OWNER' });
  google.seed.member(groups.platform, { id: users.bob });
  const foreign = google.seed.foreignGroup({ email: `shared@other-${d}`, name: 'Shared' });
  google.seed.member(groups.platform, { id: foreign.id, type: 'GROUP' });
  google.seed.member(groups.sales, { email: `daniel@${d}` });
  google.seed.member(groups.sales, { id: users.carol });
  google.seed.member(groups.everyone, { type: 'CUSTOMER' });
  google.seed.member(groups.loopA, { id: groups.loopB, type: 'GROUP' });
  google.seed.member(groups.loopB, { id: groups.loopA, type: 'GROUP' });
  google.seed.member(groups.loopB, { id: users.frank });
  return { users, groups };
}
