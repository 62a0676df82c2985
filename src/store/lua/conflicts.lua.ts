import type { IdentityKind } from '../../domain/identity.js';
import { familyArgs, type Keys } from '../keys.js';
import { INDEX_HELPERS } from './identity-index.lua.js';

/**
 * The conflict inbox's Lua (key layout: src/store/keys.ts). A conflict is two inputs claiming one
 * platform account: `same-id` (an input sends an id another input owns), `account` (its userName /
 * displayName or externalId, or the platform account it matches, belongs to another input's
 * identity) or `ambiguous` (two unmanaged platform accounts fit one identity). Its id is derived
 * from (identity kind, conflict kind, claimant's owner, claimant's id), so a repeated claim updates
 * `last` instead of adding a row, and an ignored conflict stays ignored.
 *
 * Hash P:conflict:<cid>: id, ik (user | group), kind, claimant {owner, id, name} JSON, holder
 * {owner, id, name} JSON, account {targetId?, by, candidates?} JSON, stored (same-id: the claimant's
 * doc, ix and members, which could not be stored), first, last (ms), status (open | ignored |
 * linked | withdrawn), resolvedAt, resolution JSON.
 *
 * CONFLICT_HELPERS needs, defined before it: now, and C = {open, ignored, all, kinds, family}.
 */
export const CONFLICT_HELPERS = `
local function conflictId(ik, kind, owner, id)
  return 'c' .. string.sub(redis.sha1hex(ik .. '\\n' .. kind .. '\\n' .. owner .. '\\n' .. id), 1, 20)
end
local function conflictKey(cid) return C.family.stem .. cid .. C.family.suffix end
local function party(owner, id, name)
  return {owner = owner or cjson.null, id = id, name = name or cjson.null}
end

-- Moves a conflict to a status, keeping the zsets (scored by last seen) and open counts by kind.
local function setConflictStatus(cid, to)
  local key = conflictKey(cid)
  local f = redis.call('HMGET', key, 'status', 'kind', 'last')
  local from, kind, last = f[1], f[2], tonumber(f[3]) or tonumber(now)
  if from == 'open' and to ~= 'open' then
    redis.call('ZREM', C.open, cid)
    redis.call('HINCRBY', C.kinds, kind, -1)
  end
  if from == 'ignored' and to ~= 'ignored' then redis.call('ZREM', C.ignored, cid) end
  if to == 'open' then
    redis.call('ZADD', C.open, last, cid)
    if from ~= 'open' then redis.call('HINCRBY', C.kinds, kind, 1) end
  end
  if to == 'ignored' then redis.call('ZADD', C.ignored, last, cid) end
  redis.call('ZADD', C.all, last, cid)
  redis.call('HSET', key, 'status', to)
end

-- Records a claim {ik, kind, claimant, holder?, account?, stored?}; returns the conflict id. A claim
-- seen before keeps its first time and an ignored status; a linked or withdrawn one opens again.
local function recordConflict(c)
  local cid = conflictId(c.ik, c.kind, c.claimant.owner, c.claimant.id)
  local key = conflictKey(cid)
  local status = redis.call('HGET', key, 'status')
  redis.call('HSET', key, 'id', cid, 'ik', c.ik, 'kind', c.kind, 'claimant', cjson.encode(c.claimant),
    'last', now)
  for _, field in ipairs({'holder', 'account', 'stored'}) do
    if c[field] then redis.call('HSET', key, field, cjson.encode(c[field]))
    else redis.call('HDEL', key, field) end
  end
  if status ~= 'open' and status ~= 'ignored' then
    redis.call('HSET', key, 'first', now)
    redis.call('HDEL', key, 'resolvedAt', 'resolution')
  end
  setConflictStatus(cid, status == 'ignored' and 'ignored' or 'open')
  return cid
end

-- The claimant came again (a parked identity written by its input): seen now, under its new name.
local function touchConflict(cid, name)
  local key = conflictKey(cid)
  local raw = redis.call('HGET', key, 'claimant')
  if not raw then return end
  if name then
    local claimant = cjson.decode(raw)
    claimant.name = name
    redis.call('HSET', key, 'claimant', cjson.encode(claimant))
  end
  redis.call('HSET', key, 'last', now)
  setConflictStatus(cid, redis.call('HGET', key, 'status'))
end

-- The claimant was deleted by its input: nothing is left to resolve.
local function withdrawConflict(cid)
  local status = redis.call('HGET', conflictKey(cid), 'status')
  if status == 'open' or status == 'ignored' then
    setConflictStatus(cid, 'withdrawn')
    redis.call('HSET', conflictKey(cid), 'resolvedAt', now)
  end
end
`;

/** KEYS of the conflict zsets and counts, in the order the scripts read them (C.open … C.kinds). */
export function conflictListKeys(keys: Keys): string[] {
  return [keys.conflictsOpen(), keys.conflictsIgnored(), keys.conflictsAll(), keys.conflictKinds()];
}

/**
 * KEYS of PARK_IDENTITY: [1..2] the identity's hash and doc, [3..6] the conflict zsets and counts,
 * [7..10] P:K:name, P:K:ext, P:K:pname, P:K:pext, [11] P:u:email. Families (ARGV[7..12]): identity
 * hashes and docs of the kind (the holder's), conflicts.
 */
export function parkIdentityKeys(
  keys: Keys,
  kind: IdentityKind,
  id: string,
): { keys: string[]; families: string[] } {
  return {
    keys: [
      keys.identity(kind, id),
      keys.doc(kind, id),
      ...conflictListKeys(keys),
      keys.nameIndex(kind),
      keys.externalIdIndex(kind),
      keys.parkedNameIndex(kind),
      keys.parkedExternalIdIndex(kind),
      keys.emailIndex(),
    ],
    families: [
      ...familyArgs(keys.identityFamily(kind)),
      ...familyArgs(keys.docFamily(kind)),
      ...familyArgs(keys.conflictFamily()),
    ],
  };
}

/**
 * Parks an identity while it is reconciled: its platform account is managed for another input's
 * identity, or two unmanaged accounts fit it. Records the conflict, sets `pk` and moves its names to
 * the parked indexes, in one step. ARGV[1] now, [2] kind letter, [3] id, [4] conflict kind, [5] the
 * holder's id or '', [6] account JSON, [7..12] families. Returns the conflict id ('' when the
 * identity is no longer desired).
 */
export const PARK_IDENTITY = `
local now = ARGV[1]
local k, id, kind, holderId = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local C = {open = KEYS[3], ignored = KEYS[4], all = KEYS[5], kinds = KEYS[6],
  family = {stem = ARGV[11], suffix = ARGV[12]}}
local IX = {[k] = {name = KEYS[7], ext = KEYS[8], pname = KEYS[9], pext = KEYS[10]}}
-- A parked identity owes no run: no marks, and no memberships change.
local EMAILS, MARKS, MEMBER_OF, MEMBERS = KEYS[11], nil, nil, nil
local IDENT = {stem = ARGV[7], suffix = ARGV[8]}
local DOC = {stem = ARGV[9], suffix = ARGV[10]}
${INDEX_HELPERS}
${CONFLICT_HELPERS}
local cur = redis.call('GET', KEYS[2])
if not cur then return '' end
local f = redis.call('HMGET', KEYS[1], 'o', 'ix', 'pk')
if f[3] then return f[3] end
local owner = f[1] or ''
local holder = nil
if holderId ~= '' then
  local o = redis.call('HGET', IDENT.stem .. holderId .. IDENT.suffix, 'o')
  holder = party(o or nil, holderId, docName(redis.call('GET', DOC.stem .. holderId .. DOC.suffix)))
end
local cid = recordConflict({ik = KIND[k], kind = kind, claimant = party(owner, id, docName(cur)),
  holder = holder, account = cjson.decode(ARGV[6])})
local e = entries(k, cur, f[2] or nil)
dropEntries(k, id, owner, e)
addEntries(k, id, owner, e, true)
redis.call('HSET', KEYS[1], 'pk', cid)
return cid
`;
