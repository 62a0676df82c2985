/**
 * Ownership in the batch (APPLY_BATCH, desired-state.lua.ts; SPEC §6, Ownership). Every identity
 * records the input that owns it (`o` of its hash, and P:K:own:<owner>); a batch writes as one
 * input (OWNER):
 *  - an upsert of an id whose desired state another input owns is not applied (`owned-elsewhere`)
 *    and records a `same-id` conflict holding the claimant's doc; the rest of the batch applies;
 *  - an upsert whose userName / displayName or externalId another input's identity holds is stored
 *    parked (`pk`: no dirty mark, never reconciled) with an `account` conflict;
 *  - a delete or membership change of another input's identity is `owned-elsewhere`: nothing
 *    changes, the identity's history notes the refused signal (not a conflict);
 *  - an identity deleted by its owner frees its id; one stored before owners existed (no `o`, until
 *    the start-up migration reaches it) is claimed by the next input that writes it.
 *
 * Uses, defined before it: now, OWNER, OWNERS (P:owners), IX[k].own (P:K:own:<OWNER>), IX[k].all,
 * IDENT[k] / DOC[k] / OWNED[k] (families of identity hashes, docs and owned sets), INDEX_HELPERS and
 * CONFLICT_HELPERS.
 */
export const OWNERSHIP = `
local BY_NAME = {u = 'userName', g = 'displayName'}
local function identityKey(k, id) return IDENT[k].stem .. id .. IDENT[k].suffix end
local function docKey(k, id) return DOC[k].stem .. id .. DOC[k].suffix end
local function ownedKey(k, owner) return OWNED[k].stem .. owner .. OWNED[k].suffix end

-- The other input that owns an op's identity, if any: only a desired identity is owned.
local function ownedElsewhere(op)
  if redis.call('EXISTS', op.K.d) == 0 then return nil end
  local o = redis.call('HGET', op.K.i, 'o')
  if o and o ~= OWNER then return o end
  return nil
end

-- Records OWNER as the owner and keeps P:K:own:<owner> in step (scored as in P:K:all). The caller
-- may pass what it read already: seq (the identity's score in P:K:all), o (its recorded owner, false
-- for none); with fields, the hash's new owner goes there for the caller's one HSET. P:owners
-- takes OWNER once a batch.
local ownerListed = false
local function setOwner(k, op, seq, o, fields)
  if o == nil then o = redis.call('HGET', op.K.i, 'o') end
  if o and o ~= OWNER then redis.call('ZREM', ownedKey(k, o), op.id) end
  if o ~= OWNER then
    if fields then
      fields[#fields + 1] = 'o'
      fields[#fields + 1] = OWNER
    else
      redis.call('HSET', op.K.i, 'o', OWNER)
    end
  end
  seq = seq or redis.call('ZSCORE', IX[k].all, op.id)
  if seq then redis.call('ZADD', IX[k].own, seq, op.id) end
  if not ownerListed then
    redis.call('SADD', OWNERS, OWNER)
    ownerListed = true
  end
end

-- The other input that owns h, the holder of a name or externalId an op of OWNER claims for id.
local function foreignOwner(k, h, id)
  if not h or h == id then return nil end
  local o = redis.call('HGET', identityKey(k, h), 'o')
  if o and o ~= OWNER then return o end
  return nil
end

-- Parks an upsert whose name or externalId another input's identity holds: the conflict's id (nil
-- for none), and the holder of the op's name in P:K:name as it stands (nil for none).
local function clash(k, op)
  local nameHolder = redis.call('HGET', IX[k].name, op.new.n)
  local by, h = BY_NAME[k], nameHolder
  local o = foreignOwner(k, h, op.id)
  if not o then
    by = 'externalId'
    h = op.new.x and redis.call('HGET', IX[k].ext, op.new.x)
    o = foreignOwner(k, h, op.id)
  end
  if not o then return nil, nameHolder end
  local account = {by = by}
  local t = redis.call('HGET', identityKey(k, h), 't')
  if t then account.targetId = t end
  return recordConflict({ik = KIND[k], kind = 'account', claimant = party(OWNER, op.id, docName(op.doc)),
    holder = party(o, h, docName(redis.call('GET', docKey(k, h)))), account = account}), nameHolder
end

-- A change refused because another input owns the identity, noted in its history.
local function refused(op)
  local entry = {at = tonumber(now), type = 'signal', source = OWNER}
  if op.entry and op.entry ~= '' then entry = cjson.decode(op.entry) end
  entry.refused = 'owned-elsewhere'
  entry.input = OWNER
  pushHistory(op.K.h, cjson.encode(entry))
  return 'owned-elsewhere'
end

-- An upsert of another input's identity: a same-id conflict keeps what it would have written.
local function claimSameId(k, op, holderOwner)
  local account = {by = 'id'}
  local t = redis.call('HGET', op.K.i, 't')
  if t then account.targetId = t end
  recordConflict({ik = KIND[k], kind = 'same-id', claimant = party(OWNER, op.id, docName(op.doc)),
    holder = party(holderOwner, op.id, docName(redis.call('GET', op.K.d))), account = account,
    stored = {doc = op.doc, ix = op.ix, members = op.members}})
  return refused(op)
end
`;
