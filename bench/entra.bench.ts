import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { startEntraGraph, type EntraGraphServer, type ScaleFixture } from '../test/support/entra-graph.js';
import {
  adminCall,
  CpuMeter,
  redisPid,
  startBridgeProcess,
  table,
  type BridgeChild,
  type SyncResult,
} from './support.js';

/**
 * The `entra` source at scale (issue 31): the Entra emulation's scale fixture — BENCH_ENTRA_USERS
 * users (default 100,000) and BENCH_ENTRA_GROUPS groups (default 20,000) in chains nested 10 deep,
 * one closing a cycle, a group of 2,500 direct members, guests, a device, a contact and a service
 * principal among members — read through Graph by a bridge in its own process (compiled), with
 * DIRECTORY_DELTA_SECONDS=1. The reference target already holds every user and every group with
 * its flattened members, so the bridge's first full read adopts them and writes nothing: what it
 * costs is the read. Then, by delta reads alone: a user disabled in Entra until the platform's
 * account is inactive, and a user added to the deepest group of a chain until the chain's root
 * group holds it on the platform. The emulation and the target share this process; Graph's
 * resource-unit budget of a large tenant applies (8,000 RU per 10 s).
 */
const TOKEN = 'bench-target-token-000000';
const ADMIN = 'bench-admin-token-000000';
const DEPTH = 10;

export default async function entraBench(): Promise<void> {
  const users = Number(process.env.BENCH_ENTRA_USERS ?? '100000');
  const groups = Number(process.env.BENCH_ENTRA_GROUPS ?? '20000');
  const prepared = Date.now();
  const entra = await startEntraGraph();
  const app = entra.createApp({ permissions: ['User.Read.All', 'GroupMember.Read.All'] });
  const { secret } = entra.addSecret(app.clientId);
  const fixture = entra.seedScale({ users, groups, depth: DEPTH });
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({ token: TOKEN, pageCap: 100, maxRecordedRequests: 0 });
  const memberships = seedTarget(entra, target, fixture);
  console.log(
    `\n${users} users, ${groups} groups nested ${DEPTH} deep (${fixture.edges} direct edges, ` +
      `${memberships} flattened memberships), prepared in ${((Date.now() - prepared) / 1000).toFixed(1)} s`,
  );
  const bridge = await startBridgeProcess({
    REDIS_URL: redis.url,
    TARGET_URL: target.url,
    TARGET_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    TARGET_CONCURRENCY: '8',
    DEPROVISION_LIMIT: '100%',
    DIRECTORY_SOURCE: 'entra',
    DIRECTORY_DELTA_SECONDS: '1',
    ENTRA_TENANT_ID: entra.tenantId,
    ENTRA_CLIENT_ID: app.clientId,
    ENTRA_CLIENT_SECRET: secret,
    ENTRA_AUTHORITY_HOST: entra.loginUrl,
    ENTRA_GRAPH_URL: entra.graphUrl,
  });
  try {
    await fullRead(bridge, entra, target, await redisPid(redis.url));
    await changes(bridge, entra, target, fixture);
    comparison(users + groups + fixture.edges);
  } finally {
    await bridge.stop();
    await target.close();
    await redis.stop();
    await entra.close();
  }
}

/** The full read the first delta tick starts by itself (no watermark yet), until it completes. */
async function fullRead(
  bridge: BridgeChild,
  entra: EntraGraphServer,
  target: ReferenceTarget,
  redisProcess: number,
): Promise<void> {
  target.resetStats();
  const meter = new CpuMeter([
    { name: 'bridge', pid: bridge.child.pid ?? 0 },
    { name: 'Redis', pid: redisProcess },
    { name: 'emulation + target (bench process)', pid: process.pid },
  ]);
  const record = await firstSync(bridge);
  const busy = meter.report();
  const graph = entra.requests().filter((r) => r.host === 'graph');
  const byRoute = new Map<string, number>();
  for (const r of graph) {
    const route = r.path.split('?')[0] ?? r.path;
    const kind = r.path.includes('$deltatoken=latest') ? `${route} (latest)` : route;
    byRoute.set(kind, (byRoute.get(kind) ?? 0) + 1);
  }
  const writes = target.stats({ limit: 0 }).byMethod;
  const summary = record.summary;
  console.log('  the full read (the first delta tick found no watermark)');
  console.log(
    table([
      ['state', record.state],
      ['wall time', `${(summary.durationMs / 1000).toFixed(1)} s`],
      [
        'phases',
        Object.entries(summary.phasesMs ?? {})
          .map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)} s`)
          .join(', '),
      ],
      ['Graph requests', `${graph.length}: ${[...byRoute].map(([r, n]) => `${r} ${n}`).join(', ')}`],
      ['throttled (429)', graph.filter((r) => r.status === 429).length],
      ['sign-ins', entra.requests().filter((r) => r.host === 'login').length],
      [
        'platform writes',
        `${(writes.POST ?? 0) + (writes.PATCH ?? 0) + (writes.PUT ?? 0)} (0 expected: all adopted)`,
      ],
      ['bridge peak RSS', `${bridge.peakRssMb()} MB`],
      ['CPU', busy],
    ]),
  );
}

async function firstSync(bridge: BridgeChild): Promise<SyncResult> {
  for (;;) {
    const { syncs } = await polled<{ syncs: { jobId: string; state: string }[] }>(bridge, '/admin/sync');
    const done = syncs.find((s) => ['completed', 'failed', 'awaiting-approval'].includes(s.state));
    if (done) return polled<SyncResult>(bridge, `/admin/sync/${done.jobId}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** An admin GET, tried again while the bridge answers 503 (its Redis slow on a loaded machine). */
async function polled<T>(bridge: BridgeChild, path: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await adminCall<T>(bridge.url, ADMIN, 'GET', path);
    } catch (error) {
      if (attempt >= 20 || !String(error).includes(': 503 ')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/**
 * Two changes, each timed from its making in Entra until a delta read applied it to the desired
 * state (with what that read took), and until the platform shows it.
 */
async function changes(
  bridge: BridgeChild,
  entra: EntraGraphServer,
  target: ReferenceTarget,
  fixture: ScaleFixture,
): Promise<void> {
  await deltaReads(bridge, 1);
  const from = entra.requests().length;
  const idle = Date.now();
  await deltaReads(bridge, 5);
  const idleRequests = entra.requests().length - from;
  const idleSeconds = (Date.now() - idle) / 1000;
  const disabled = fixture.userId(4242);
  const disable = await timed(
    bridge,
    entra,
    () => entra.updateUser(disabled, { accountEnabled: false }),
    () => target.users().some((u) => u.externalId === disabled && u.active === false),
  );
  const chain = 5;
  const root = fixture.groupId(chain * DEPTH);
  const deepest = fixture.groupId(chain * DEPTH + DEPTH - 1);
  const joiner = fixture.userId(99_998 % fixture.users);
  const rootHolds = () => {
    const account = target.users().find((u) => u.externalId === joiner)?.id;
    const group = target.groups().find((g) => g.externalId === root);
    return group?.members.some((m) => m.value === account) === true;
  };
  if (rootHolds()) throw new Error('the joining user is already in the root group');
  const join = await timed(bridge, entra, () => entra.addMember(deepest, joiner), rootHolds);
  console.log('  changes by delta reads (DIRECTORY_DELTA_SECONDS=1)');
  console.log(
    table([
      [
        'idle delta reads',
        `${((idleRequests / idleSeconds) * 60).toFixed(0)} requests a minute (users and groups rounds)`,
      ],
      ['user disabled → inactive on the platform', disable],
      [`user added ${DEPTH - 1} levels down → in the root group on the platform`, join],
    ]),
  );
}

/** How long a change takes: until a delta read applied it, and until the platform shows it. */
async function timed(
  bridge: BridgeChild,
  entra: EntraGraphServer,
  change: () => void,
  onPlatform: () => boolean,
): Promise<string> {
  const before = await totals(bridge);
  const requests = entra.requests().length;
  const started = Date.now();
  change();
  let applied = await totals(bridge);
  while (applied.changes === before.changes) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    applied = await totals(bridge);
  }
  const appliedMs = Date.now() - started;
  await until(onPlatform);
  const doneMs = Date.now() - started;
  const graph = entra
    .requests()
    .slice(requests)
    .filter((r) => r.host === 'graph').length;
  const read = applied.durationMs - before.durationMs;
  return (
    `${(doneMs / 1000).toFixed(2)} s (applied by a delta read after ${(appliedMs / 1000).toFixed(2)} s, ` +
    `the read ${read} ms; ${graph} Graph requests meanwhile)`
  );
}

/** What Entra's own provisioning documents for the same tenant, beside what was measured. */
function comparison(objects: number): void {
  const minutes = (perObject: number) => ((objects * perObject) / 60).toFixed(1);
  console.log('  Entra provisioning, as Microsoft documents it, for the same objects');
  console.log(
    table([
      [
        'initial cycle (0.01–0.08 min per user, group and direct membership)',
        `${minutes(0.01)}–${minutes(0.08)} h`,
      ],
      [
        'later cycles',
        'every 20–40 minutes (40 in the AWS IAM Identity Center tutorial); nested groups not read',
      ],
    ]),
  );
}

interface Totals {
  reads: number;
  changes: number;
  durationMs: number;
}

/** The directory input's delta reads added up (GET /admin/status). */
async function totals(bridge: BridgeChild): Promise<Totals> {
  const status = await polled<{ inputs: { input: string; reads: Totals }[] }>(bridge, '/admin/status');
  return (
    status.inputs.find((i) => i.input === 'directory:directory')?.reads ?? {
      reads: 0,
      changes: 0,
      durationMs: 0,
    }
  );
}

/** Waits until the directory input has made `count` more delta reads. */
async function deltaReads(bridge: BridgeChild, count: number): Promise<void> {
  const start = (await totals(bridge)).reads;
  while ((await totals(bridge)).reads < start + count)
    await new Promise((resolve) => setTimeout(resolve, 100));
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * The platform as a fully provisioned tenant: every user (its Entra id as externalId) and every
 * group with the users reachable through its nested groups, flattened here from the emulation's
 * own edges. Returns the flattened memberships.
 */
function seedTarget(entra: EntraGraphServer, target: ReferenceTarget, fixture: ScaleFixture): number {
  const targetIds = new Map<string, string>();
  for (let i = 0; i < fixture.users; i++) {
    const id = fixture.userId(i);
    const user = entra.object(id);
    const mail = typeof user?.mail === 'string' ? user.mail : undefined;
    const inserted = target.insertUser({
      userName: String(user?.userPrincipalName),
      externalId: id,
      name: { givenName: String(user?.givenName), familyName: String(user?.surname) },
      ...(mail ? { emails: [{ value: mail, primary: true }] } : {}),
      active: user?.accountEnabled !== false,
    });
    targetIds.set(id, inserted.id);
  }
  const groupIds = new Set(Array.from({ length: fixture.groups }, (_, g) => fixture.groupId(g)));
  let memberships = 0;
  for (const groupId of groupIds) {
    const members = flattened(entra, groupId, groupIds).flatMap((id) => targetIds.get(id) ?? []);
    memberships += members.length;
    const name = String(entra.object(groupId)?.displayName);
    target.insertGroup({
      displayName: name,
      externalId: groupId,
      members: members.map((value) => ({ value })),
    });
  }
  return memberships;
}

function flattened(entra: EntraGraphServer, top: string, groups: ReadonlySet<string>): string[] {
  const users = new Set<string>();
  const seen = new Set([top]);
  for (const queue = [top]; queue.length > 0;) {
    for (const member of entra.members(queue.shift() as string)) {
      if (groups.has(member)) {
        if (!seen.has(member)) queue.push(member);
        seen.add(member);
      } else users.add(member);
    }
  }
  return [...users];
}
