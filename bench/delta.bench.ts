import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { startSlapd, type Slapd } from '../test/support/slapd.js';
import { adminCall, runSync, startBridgeProcess, table, type BridgeChild } from './support.js';

/**
 * A delta read against the full sync of the same change (issue 21): an OpenLDAP directory of
 * BENCH_DELTA_USERS people (default 100,000) with the accesslog overlay, the reference target at
 * 10 ms latency (page cap 100, TARGET_CONCURRENCY=8) already holding them, a bridge process.
 *  1. A full sync of the unchanged directory (adopts everyone; it records where deltas continue).
 *  2. 100 people changed in LDAP, then a full sync: what catching them costs without deltas.
 *  3. A bridge with DIRECTORY_DELTA_SECONDS=1 on the same Redis; 100 other people changed: the time
 *     until the platform holds all of them, the LDAP entries the delta read, platform requests per change.
 */
const TOKEN = 'bench-target-token-000000';
const ADMIN = 'bench-admin-token-000000';
const SUFFIX = 'dc=bench,dc=example';
const CHANGES = 100;
const LATENCY_MS = 10;

const uuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const uid = (i: number) => `person${i}`;
const dn = (i: number) => `uid=${uid(i)},ou=people,${SUFFIX}`;

export default async function deltaBench(): Promise<void> {
  const users = Number(process.env.BENCH_DELTA_USERS ?? '100000');
  const work = mkdtempSync(join(tmpdir(), 'bench-delta-'));
  const started = Date.now();
  await writeLdif(join(work, 'people.ldif'), users);
  const slapd = await startSlapd({
    suffix: SUFFIX,
    ldif: [join(work, 'people.ldif')],
    maxSizeBytes: 2 * 1024 ** 3,
  });
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({ token: TOKEN, pageCap: 100, maxRecordedRequests: 0 });
  seed(target, users);
  console.log(
    `\n${users} people in OpenLDAP (accesslog), prepared in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const env = bridgeEnv(slapd, redis.url, target.url);
  try {
    target.faults.setLatency({ ms: LATENCY_MS });
    const full = await startBridgeProcess({ ...env, DIRECTORY_DELTA_SECONDS: '0' });
    let fullRow: string[];
    try {
      await runSync(full.url, ADMIN);
      await change(slapd, 1, 'Full');
      fullRow = await measureFull(full, target);
    } finally {
      await full.stop();
    }
    const deltas = await startBridgeProcess({ ...env, DIRECTORY_DELTA_SECONDS: '1' });
    try {
      const deltaRow = await measureDelta(deltas, target, slapd, users);
      console.log(
        table([
          ['', 'wall time · LDAP entries read · platform requests (per change)'],
          ['full sync', fullRow.join(' · ')],
          ['delta', deltaRow.join(' · ')],
        ]),
      );
    } finally {
      await deltas.stop();
    }
  } finally {
    await target.close();
    await redis.stop();
    await slapd.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function bridgeEnv(slapd: Slapd, redisUrl: string, targetUrl: string): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    KEY_PREFIX: '{bench-delta}',
    TARGET_URL: targetUrl,
    TARGET_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    TARGET_CONCURRENCY: '8',
    DEPROVISION_LIMIT: '100%',
    DIRECTORY_SOURCE: 'ldap',
    LDAP_URL: slapd.url,
    LDAP_BIND_DN: slapd.rootDn,
    LDAP_BIND_PASSWORD: slapd.rootPassword,
    LDAP_USER_BASE: `ou=people,${SUFFIX}`,
    LDAP_GROUP_BASE: `ou=groups,${SUFFIX}`,
  };
}

async function measureFull(bridge: BridgeChild, target: ReferenceTarget): Promise<string[]> {
  target.resetStats();
  const started = Date.now();
  const result = await runSync(bridge.url, ADMIN);
  const wall = (Date.now() - started) / 1000;
  const read = (result.plan as { source?: { users?: number } }).source?.users ?? 0;
  return [`${wall.toFixed(1)} s`, `${read} entries`, requestsPerChange(target)];
}

async function measureDelta(
  bridge: BridgeChild,
  target: ReferenceTarget,
  slapd: Slapd,
  users: number,
): Promise<string[]> {
  // The bridge's first delta read, before the change, sets where it stands.
  const before = await deltaReads(bridge, (reads) => reads.reads > 0);
  target.resetStats();
  const started = Date.now();
  await change(slapd, Math.floor(users / 2), 'Delta');
  const changed = () => target.users().filter((u) => u.name?.familyName === 'Delta').length;
  while (changed() < CHANGES) await new Promise((resolve) => setTimeout(resolve, 20));
  const wall = (Date.now() - started) / 1000;
  const requests = requestsPerChange(target);
  const after = await deltaReads(bridge, (reads) => reads.changes - before.changes >= CHANGES);
  const reads = after.reads - before.reads;
  const entries = after.entriesRead - before.entriesRead;
  return [
    `${wall.toFixed(2)} s (${reads} delta reads took ${after.durationMs - before.durationMs} ms)`,
    `${entries} entries`,
    requests,
  ];
}

interface Reads {
  reads: number;
  changes: number;
  entriesRead: number;
  durationMs: number;
}

/** The directory input's delta reads added up (GET /admin/status), once they satisfy `done`. */
async function deltaReads(bridge: BridgeChild, done: (reads: Reads) => boolean): Promise<Reads> {
  for (;;) {
    const status = await adminCall<{ inputs: { input: string; reads: Reads }[] }>(
      bridge.url,
      ADMIN,
      'GET',
      '/admin/status',
    );
    const reads = status.inputs.find((i) => i.input === 'directory:directory')?.reads;
    if (reads && done(reads)) return reads;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The platform requests since the last reset, per change, and by route. A bridge process reads the
 * platform's ServiceProviderConfig once, at its first request: that read is shown, not counted per change.
 */
function requestsPerChange(target: ReferenceTarget): string {
  const { total, byRoute } = target.stats({ limit: 0 });
  const once = Object.entries(byRoute)
    .filter(([route]) => route.includes('ServiceProviderConfig'))
    .reduce((sum, [, count]) => sum + count, 0);
  const routes = Object.entries(byRoute)
    .map(([route, count]) => `${route} ${count}`)
    .join(', ');
  return `${total} (${((total - once) / CHANGES).toFixed(2)} per change; ${routes})`;
}

/** Changes the family name of CHANGES people from `from` on. */
async function change(slapd: Slapd, from: number, familyName: string): Promise<void> {
  const client = new Client({ url: slapd.url });
  await client.bind(slapd.rootDn, slapd.rootPassword);
  try {
    for (let i = from; i < from + CHANGES; i++)
      await client.modify(
        dn(i),
        new Change({
          operation: 'replace',
          modification: new Attribute({ type: 'sn', values: [familyName] }),
        }),
      );
  } finally {
    await client.unbind();
  }
}

function seed(target: ReferenceTarget, users: number): void {
  for (let i = 0; i < users; i++) {
    const mail = `${uid(i)}@bench.example`;
    target.insertUser({
      userName: mail,
      externalId: uuid(i),
      name: { givenName: `Given${i}`, familyName: `Family${i}` },
      emails: [{ value: mail, type: 'work', primary: true }],
      active: true,
    });
  }
}

async function writeLdif(path: string, users: number): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: bench\no: Bench\n\n`);
  await write(`dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people\n\n`);
  await write(`dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups\n\n`);
  for (let i = 0; i < users; i++)
    await write(
      `dn: ${dn(i)}\nobjectClass: inetOrgPerson\nuid: ${uid(i)}\ncn: Person ${i}\ngivenName: Given${i}\nsn: Family${i}\nmail: ${uid(i)}@bench.example\nentryUUID: ${uuid(i)}\n\n`,
    );
  out.end();
  await once(out, 'finish');
}
