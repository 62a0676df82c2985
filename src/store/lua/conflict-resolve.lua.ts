import type { IdentityKind } from '../../domain/identity.js';
import { familyArgs, type Keys } from '../keys.js';
import { CONFLICT_HELPERS, conflictListKeys } from './conflicts.lua.js';
import { INDEX_HELPERS } from './identity-index.lua.js';

/**
 * KEYS of RESOLVE_CONFLICT: [1] P:dirty, [2] P:u:memberof, [3] P:u:email, [4] P:owners, [5..8] the
 * conflict zsets and counts, [9..17] P:K:name, P:K:ext, P:K:pname, P:K:pext, P:K:all, P:K:seq,
 * P:K:tid, P:K:managed, P:K:creating of the identity kind, [18] the conflict's hash, [19..21] the
 * claimant's hash, doc and history, [22] its member set (groups). Families (ARGV[7..18]): group
 * member sets, identity hashes, docs, histories and owned sets of the kind, conflicts.
 */
export function resolveConflictKeys(
  keys: Keys,
  conflictId: string,
  claimant: { kind: IdentityKind; id: string },
): { keys: string[]; families: string[] } {
  const { kind, id } = claimant;
  return {
    keys: [
      keys.dirty(),
      keys.memberOf(),
      keys.emailIndex(),
      keys.owners(),
      ...conflictListKeys(keys),
      keys.nameIndex(kind),
      keys.externalIdIndex(kind),
      keys.parkedNameIndex(kind),
      keys.parkedExternalIdIndex(kind),
      keys.all(kind),
      keys.sequence(kind),
      keys.targetIdIndex(kind),
      keys.managed(kind),
      keys.creating(kind),
      keys.conflict(conflictId),
      keys.identity(kind, id),
      keys.doc(kind, id),
      keys.history(kind, id),
      ...(kind === 'group' ? [keys.members(id)] : []),
    ],
    families: [
      ...familyArgs(keys.membersFamily()),
      ...familyArgs(keys.identityFamily(kind)),
      ...familyArgs(keys.docFamily(kind)),
      ...familyArgs(keys.historyFamily(kind)),
      ...familyArgs(keys.ownedFamily(kind)),
      ...familyArgs(keys.conflictFamily()),
    ],
  };
}

/**
 * Resolves a conflict in one step (SPEC §6, Ownership). ARGV[1] now, [2] kind letter, [3] conflict
 * id, [4] claimant id, [5] 'link' or 'ignore', [6] the platform id to link ('' for the recorded one).
 *  - ignore (an open conflict): the claimant stays parked; the conflict is no longer reported.
 *  - link (open or ignored): the claimant's input becomes the owner of the platform account.
 *    same-id: the identity's doc and owner become the claimant's, and it is reconciled.
 *    account / ambiguous: whoever holds the account, or the claimant's userName / displayName /
 *    externalId, loses the platform mapping (never deprovisioned) and is parked — with an ignored
 *    conflict of its own, so linking that one undoes this; the claimant is unparked, adopts the
 *    account (ambiguous: the candidate named) and is reconciled.
 * Returns JSON {status} or {error: not_found | resolved | gone | target_required | not_candidate}.
 */
export const RESOLVE_CONFLICT = `
local now = ARGV[1]
local k, cid, id, action, target = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local function family(i) return {stem = ARGV[i], suffix = ARGV[i + 1]} end
local MARKS, MEMBER_OF, EMAILS, OWNERS = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local C = {open = KEYS[5], ignored = KEYS[6], all = KEYS[7], kinds = KEYS[8], family = family(17)}
local IX = {[k] = {name = KEYS[9], ext = KEYS[10], pname = KEYS[11], pext = KEYS[12], all = KEYS[13],
  seq = KEYS[14], tid = KEYS[15], managed = KEYS[16], creating = KEYS[17]}}
local K = {c = KEYS[18], i = KEYS[19], d = KEYS[20], h = KEYS[21], m = KEYS[22]}
local MEMBERS, IDENT, DOC, HIST, OWNED = family(7), family(9), family(11), family(13), family(15)
local function key(f, part) return f.stem .. part .. f.suffix end
${INDEX_HELPERS}
${CONFLICT_HELPERS}

local f = redis.call('HMGET', K.c, 'status', 'kind', 'claimant', 'holder', 'account', 'stored')
if not f[1] then return cjson.encode({error = 'not_found'}) end
local status, kind = f[1], f[2]
local claimant = cjson.decode(f[3])
if claimant.id ~= id then return cjson.encode({error = 'not_found'}) end
local account = f[5] and cjson.decode(f[5]) or {}
local function decision(historyKey, what, fields)
  fields.at, fields.type, fields.decision, fields.conflict = tonumber(now), 'decision', what, cid
  pushHistory(historyKey, cjson.encode(fields))
end
local function resolved(to, resolution)
  setConflictStatus(cid, to)
  redis.call('HSET', K.c, 'resolvedAt', now, 'resolution', cjson.encode(resolution))
  return cjson.encode({status = to})
end

if action == 'ignore' then
  if status ~= 'open' then return cjson.encode({error = 'resolved', status = status}) end
  return resolved('ignored', {action = 'ignore'})
end
if status ~= 'open' and status ~= 'ignored' then return cjson.encode({error = 'resolved', status = status}) end

-- The identity keeps its owner's entries where they belong; owned sets follow a change of owner.
local function moveOwner(hashKey, who, from, to)
  if from and from ~= to then redis.call('ZREM', key(OWNED, from), who) end
  local seq = redis.call('ZSCORE', IX[k].all, who)
  if seq then redis.call('ZADD', key(OWNED, to), seq, who) end
  redis.call('HSET', hashKey, 'o', to)
  redis.call('SADD', OWNERS, to)
end

-- same-id: what the claimant sent becomes the identity (as its upsert would have written it).
local function linkSameId()
  if not f[6] then return cjson.encode({error = 'gone'}) end
  local stored = cjson.decode(f[6])
  local cur = redis.call('GET', K.d)
  local h = redis.call('HMGET', K.i, 'ix', 'o', 'pk')
  if cur then dropEntries(k, id, h[2] or nil, entries(k, cur, h[1])) end
  addEntries(k, id, claimant.owner, entries(k, stored.doc, stored.ix), false)
  redis.call('SET', K.d, stored.doc)
  if stored.ix then redis.call('HSET', K.i, 'ix', stored.ix) else redis.call('HDEL', K.i, 'ix') end
  if k == 'g' and stored.members then setMembers(K.m, id, stored.members) end
  if not redis.call('ZSCORE', IX[k].all, id) then
    redis.call('ZADD', IX[k].all, redis.call('INCR', IX[k].seq), id)
    redis.call('HSET', K.i, 'cr', now)
  end
  moveOwner(K.i, id, h[2] or nil, claimant.owner)
  if h[3] then
    withdrawConflict(h[3])
    redis.call('HDEL', K.i, 'pk')
  end
  redis.call('HSET', K.i, 'ts', now)
  redis.call('HINCRBY', K.i, 'v', 1)
  dirty(MARK[k] .. id)
  decision(K.h, 'linked', {owner = claimant.owner})
  return resolved('linked', {action = 'link'})
end

-- Another identity gives up the account (tid) and the names the claimant needs, and is parked.
local function demote(who, tid, by)
  local hashKey = key(IDENT, who)
  local h = redis.call('HMGET', hashKey, 't', 'o', 'ix', 'pk')
  if tid and h[1] == tid then
    redis.call('HDEL', hashKey, 't', 'm')
    redis.call('SREM', IX[k].managed, who)
    unindex(IX[k].tid, tid, who)
  end
  local doc = redis.call('GET', key(DOC, who))
  if not doc then return end
  local owner = h[2] or ''
  local e = entries(k, doc, h[3] or nil)
  dropEntries(k, who, owner, e)
  addEntries(k, who, owner, e, true)
  if not h[4] then
    local own = recordConflict({ik = KIND[k], kind = 'account', claimant = party(owner, who, docName(doc)),
      holder = party(claimant.owner, id, claimant.name), account = {targetId = tid, by = by}})
    setConflictStatus(own, 'ignored')
    redis.call('HSET', hashKey, 'pk', own)
  end
  decision(key(HIST, who), 'unlinked', {targetId = tid or cjson.null})
end

local function isCandidate(tid)
  for _, c in ipairs(account.candidates or {}) do if c.targetId == tid then return true end end
  return false
end

local function linkAccount()
  local cur = redis.call('GET', K.d)
  if not cur then return cjson.encode({error = 'gone'}) end
  local tid = account.targetId
  if target ~= '' then tid = target end
  if kind == 'ambiguous' and not tid then return cjson.encode({error = 'target_required'}) end
  if kind == 'ambiguous' and not isCandidate(tid) then return cjson.encode({error = 'not_candidate'}) end
  local h = redis.call('HMGET', K.i, 'ix', 'o', 't')
  local e = entries(k, cur, h[1] or nil)
  -- Who holds the account, the claimant's name and its externalId now (HGET answers false for none).
  local found = {redis.call('HGET', IX[k].name, e.n), false, false}
  if tid then found[2] = redis.call('HGET', IX[k].tid, tid) end
  if e.x then found[3] = redis.call('HGET', IX[k].ext, e.x) end
  local done = {}
  for n = 1, 3 do
    local who = found[n]
    if who and who ~= id and not done[who] then
      done[who] = true
      demote(who, tid, account.by or 'userName')
    end
  end
  redis.call('HDEL', K.i, 'pk')
  dropEntries(k, id, h[2] or '', e)
  addEntries(k, id, h[2] or '', e, false)
  if tid then
    if h[3] and h[3] ~= tid then unindex(IX[k].tid, h[3], id) end
    redis.call('HSET', K.i, 't', tid, 'm', '1')
    redis.call('HDEL', K.i, 'pc')
    redis.call('SREM', IX[k].creating, id)
    redis.call('HSET', IX[k].tid, tid, id)
    redis.call('SADD', IX[k].managed, id)
  end
  dirty(MARK[k] .. id)
  decision(K.h, 'linked', {targetId = tid or cjson.null})
  return resolved('linked', {action = 'link', targetId = tid or cjson.null})
end

if kind == 'same-id' then return linkSameId() end
return linkAccount()
`;
