import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { collectGarbage } from '../ops/memory.js';
import { LuaScript } from './lua-script.js';
import { BULK_READ, bulkReadKeys } from './lua/desired-state-bulk.lua.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

export interface StoredIdentity<D> {
  /** The stored canonical JSON (absent: not desired), to tell a changed identity from an unchanged one. */
  json?: string;
  /** The desired state, parsed, when asked for. */
  desired?: D;
  /** Member user ids (groups). */
  members?: string[];
  targetId?: string;
  managed: boolean;
  /** The externalId of a create whose answer was lost (see reconcile-state.store.ts). */
  pendingCreate?: string;
}

type Desired<K extends IdentityKind> = K extends 'user' ? DesiredUser : DesiredGroup;

const BATCH = 1000;
const bulkReadScript = new LuaScript(BULK_READ);

/**
 * Reads every identity of a kind that is desired, managed or has a create of unknown outcome, with
 * its target id, in pipelined batches: what a full reconciliation compares with the target. With
 * `parse: false` the desired state stays JSON (a sync reading a snapshot only compares strings,
 * and 100,000 parsed identities would cost tens of megabytes).
 */
export async function loadAllIdentities<K extends IdentityKind>(
  redis: RedisClient,
  keys: Keys,
  kind: K,
  options: { parse: boolean },
): Promise<Map<string, StoredIdentity<Desired<K>>>> {
  const [desiredIds, managedIds, creatingIds] = await storeCall(() =>
    Promise.all([
      redis.zrange(keys.all(kind), 0, -1),
      redis.smembers(keys.managed(kind)),
      redis.smembers(keys.creating(kind)),
    ]),
  );
  const ids = [...new Set([...desiredIds, ...managedIds, ...creatingIds])];
  const result = new Map<string, StoredIdentity<Desired<K>>>();
  const per = kind === 'group' ? 5 : 4;
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const reply = (await storeCall(() =>
      bulkReadScript.run(redis, bulkReadKeys(keys, kind, batch), [kind === 'group' ? 3 : 2]),
    )) as string[];
    if ((i / BATCH) % 25 === 24) collectGarbage();
    batch.forEach((id, n) => {
      const [json, t, m, pc, joined] = reply.slice(n * per, n * per + per);
      const members = kind === 'group' ? (joined ? joined.split('\n').sort() : []) : undefined;
      result.set(id, {
        ...(json ? { json } : {}),
        ...(json && options.parse ? { desired: parse(kind, id, json, members) as Desired<K> } : {}),
        ...(members ? { members } : {}),
        ...(t ? { targetId: t } : {}),
        managed: m === '1',
        ...(pc ? { pendingCreate: pc } : {}),
      });
    });
  }
  return result;
}

function parse(kind: IdentityKind, id: string, json: string, members: string[] | undefined) {
  return kind === 'user' ? parseStoredUser(id, json) : parseStoredGroup(id, json, members ?? []);
}
