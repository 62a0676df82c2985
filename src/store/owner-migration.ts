import type { Owner } from '../domain/desired-change.js';
import type { IdentityKind } from '../domain/identity.js';
import { familyArgs, type Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/**
 * The one-time migration of identities stored before owners existed (SPEC §6, Ownership): every
 * desired identity without an owner gets one — the input of the newest `signal` entry of its
 * history (scim, events, okta; a snapshot or directory signal: the configured directory), else the
 * configured directory (a full sync writes no history entry per upsert). Walks P:K:all in chunks,
 * each chunk one script, so it is safe while inputs write (an identity written meanwhile already has
 * its owner) and safe to run twice or from two processes at once (both derive the same owner; the
 * owned sets are added to idempotently). P:migrations:owners records that it is done.
 */

const CHUNK = 500;

/**
 * KEYS: [1] P:K:all, [2] P:owners, then per id its hash and history. ARGV[1] the configured
 * directory's owner, [2..3] the family of owned sets, [4..] the ids. Returns how many got an owner.
 */
const MIGRATE_OWNERS = new LuaScript(`
local INPUTS = {scim = 'scim', events = 'events', okta = 'okta'}
local directory = ARGV[1]
local OWNED = {stem = ARGV[2], suffix = ARGV[3]}
local count = 0
for n = 4, #ARGV do
  local id, hash, history = ARGV[n], KEYS[3 + (n - 4) * 2], KEYS[4 + (n - 4) * 2]
  local owner = redis.call('HGET', hash, 'o')
  if not owner then
    owner = directory
    for _, line in ipairs(redis.call('LRANGE', history, 0, -1)) do
      local ok, entry = pcall(cjson.decode, line)
      if ok and type(entry) == 'table' and entry.type == 'signal' and entry.refused == nil then
        owner = INPUTS[entry.source] or directory
        break
      end
    end
    redis.call('HSET', hash, 'o', owner)
    count = count + 1
  end
  local seq = redis.call('ZSCORE', KEYS[1], id)
  if seq then redis.call('ZADD', OWNED.stem .. owner .. OWNED.suffix, seq, id) end
  redis.call('SADD', KEYS[2], owner)
end
return count
`);

export interface OwnerMigration {
  /** False when the marker said it was done already. */
  ran: boolean;
  /** Identities that got an owner. */
  users: number;
  groups: number;
}

export async function migrateOwners(
  redis: RedisClient,
  keys: Keys,
  directory: Owner,
  options: { force?: boolean } = {},
): Promise<OwnerMigration> {
  const marker = keys.ownersMigration();
  if (!options.force && (await storeCall(() => redis.exists(marker))) === 1) {
    return { ran: false, users: 0, groups: 0 };
  }
  // Owners change: no input's source digest stands for its identities any longer.
  await storeCall(() => redis.del(keys.sourceDigests()));
  const users = await migrateKind(redis, keys, 'user', directory);
  const groups = await migrateKind(redis, keys, 'group', directory);
  await storeCall(() => redis.set(marker, JSON.stringify({ at: Date.now(), users, groups })));
  return { ran: true, users, groups };
}

async function migrateKind(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  directory: Owner,
): Promise<number> {
  let migrated = 0;
  // By score (each identity's first-seen sequence, unique): a removal meanwhile skips nothing, and
  // identities added meanwhile come after the last score read (they have owners already).
  for (let after = '-inf'; ;) {
    const flat = await storeCall(() =>
      redis.zrangebyscore(keys.all(kind), after, '+inf', 'WITHSCORES', 'LIMIT', 0, CHUNK),
    );
    const ids = flat.filter((_, i) => i % 2 === 0);
    if (ids.length === 0) return migrated;
    after = `(${flat[flat.length - 1]}`;
    const scriptKeys = [
      keys.all(kind),
      keys.owners(),
      ...ids.flatMap((id) => [keys.identity(kind, id), keys.history(kind, id)]),
    ];
    const args = [directory, ...familyArgs(keys.ownedFamily(kind)), ...ids];
    migrated += Number(await storeCall(() => MIGRATE_OWNERS.run(redis, scriptKeys, args)));
    if (ids.length < CHUNK) return migrated;
  }
}
