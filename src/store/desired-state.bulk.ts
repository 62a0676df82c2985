import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { collectGarbage } from '../ops/memory.js';
import { LuaScript } from './lua-script.js';
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

/**
 * One call per batch of ids, answering a flat array — desired JSON, target id, managed flag,
 * pending create, and (groups) the member ids joined by line breaks — instead of several replies
 * per identity: a full sync reads 100,000 identities and each reply costs objects to parse.
 * ARGV[1] prefix, [2] kind letter, [3..] ids.
 */
const BULK_READ = new LuaScript(`
local P, k = ARGV[1], ARGV[2]
local out = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  local f = redis.call('HMGET', P .. ':' .. k .. ':i:' .. id, 't', 'm', 'pc')
  out[#out + 1] = redis.call('GET', P .. ':' .. k .. ':d:' .. id) or ''
  out[#out + 1] = f[1] or ''
  out[#out + 1] = f[2] or ''
  out[#out + 1] = f[3] or ''
  if k == 'g' then out[#out + 1] = table.concat(redis.call('SMEMBERS', P .. ':g:mem:' .. id), '\\n') end
end
return out
`);

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
    const letter = kind === 'user' ? 'u' : 'g';
    const reply = (await storeCall(() => BULK_READ.run(redis, keys.prefix, [letter, ...batch]))) as string[];
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
