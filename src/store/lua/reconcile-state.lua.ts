/**
 * Lua scripts the reconciler uses to record what it learnt about the target. ARGV[1] prefix,
 * [2] kind letter (u|g), [3] id. Key layout: src/store/keys.ts.
 */

/**
 * Records the target id of an identity (ARGV[4]) and that the bridge manages it (created or
 * adopted), and clears a pending create.
 */
export const SET_TARGET = `
local P, k, id, tid = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':' .. k .. ':i:' .. id
local old = redis.call('HGET', key, 't')
local index = P .. ':' .. k .. ':tid'
if old and old ~= tid and redis.call('HGET', index, old) == id then redis.call('HDEL', index, old) end
redis.call('HSET', key, 't', tid, 'm', '1')
redis.call('HDEL', key, 'pc')
redis.call('SREM', P .. ':' .. k .. ':creating', id)
redis.call('HSET', index, tid, id)
redis.call('SADD', P .. ':' .. k .. ':managed', id)
return 1
`;

/**
 * Bulk adoption by a full sync: for each identity without a target id, records the one its listing
 * matched (an existing mapping, which a reconcile run may have just written, is left alone).
 * ARGV[2] now (ms), then triples [kind letter, id, target id]. Returns how many were recorded.
 */
export const ADOPT_BULK = `
local P, now = ARGV[1], ARGV[2]
local adopted = 0
for i = 3, #ARGV, 3 do
  local k, id, tid = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local key = P .. ':' .. k .. ':i:' .. id
  if not redis.call('HGET', key, 't') then
    redis.call('HSET', key, 't', tid, 'm', '1', 'lr', 'adopted', 'la', now)
    redis.call('HDEL', key, 'pc')
    redis.call('SREM', P .. ':' .. k .. ':creating', id)
    redis.call('HSET', P .. ':' .. k .. ':tid', tid, id)
    redis.call('SADD', P .. ':' .. k .. ':managed', id)
    adopted = adopted + 1
  end
end
return adopted
`;

/**
 * Notes a create about to be sent (ARGV[4]: the externalId it carries) or, with '', forgets one:
 * if its answer is lost and the identity is then deleted, deprovisioning still finds it.
 */
export const MARK_CREATING = `
local P, k, id, externalId = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':' .. k .. ':i:' .. id
if externalId == '' then
  redis.call('HDEL', key, 'pc')
  redis.call('SREM', P .. ':' .. k .. ':creating', id)
else
  redis.call('HSET', key, 'pc', externalId)
  redis.call('SADD', P .. ':' .. k .. ':creating', id)
end
return 1
`;

/**
 * Forgets the target id (deleted out of band, or deleted by us). ARGV[4] 'drop' also removes the
 * identity's record when nothing desired is left, so deleted identities do not accumulate.
 */
export const FORGET_TARGET = `
local P, k, id, drop = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = P .. ':' .. k .. ':i:' .. id
local old = redis.call('HGET', key, 't')
local index = P .. ':' .. k .. ':tid'
if old and redis.call('HGET', index, old) == id then redis.call('HDEL', index, old) end
redis.call('HDEL', key, 't', 'm')
redis.call('SREM', P .. ':' .. k .. ':managed', id)
if drop == 'drop' and redis.call('EXISTS', P .. ':' .. k .. ':d:' .. id) == 0 then
  redis.call('DEL', key)
  redis.call('SREM', P .. ':' .. k .. ':creating', id)
  redis.call('EXPIRE', P .. ':' .. k .. ':h:' .. id, 604800)
end
return 1
`;

/**
 * Records the end of one reconcile run. ARGV[4] identity key ("user:<id>"), [5] started (ms),
 * [6] now (ms), [7] result: an action, 'failed' (permanent) or 'retrying', [8] error JSON or '',
 * [9] requests JSON {METHOD: n}, [10] / [11] the scores of the identity's marks in P:dirty and
 * P:dirty:sync when the run began, before it read the desired state ('' for none), [12..] history
 * entries (oldest first).
 * Clears a dirty mark only if its score is still the one the run saw (marks only grow: any change
 * since makes it higher), and reports the run to the active full reconciliation when it is waiting
 * on this identity.
 */
export const RECORD_OUTCOME = `
local P, k, id, ikey, started, now, result, err, requests = ARGV[1], ARGV[2], ARGV[3], ARGV[4],
  tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local seen = {tonumber(ARGV[10]), tonumber(ARGV[11])}
local key = P .. ':' .. k .. ':i:' .. id
local h = P .. ':' .. k .. ':h:' .. id
for i = 12, #ARGV do redis.call('LPUSH', h, ARGV[i]) end
redis.call('LTRIM', h, 0, 19)
local exists = redis.call('EXISTS', key) == 1
if exists then redis.call('HSET', key, 'lt', now, 'lr', result) end
if result == 'retrying' then
  if exists and err ~= '' then redis.call('HSET', key, 'le', err) end
  return 0
end
if result == 'failed' then
  if exists then redis.call('HSET', key, 'le', err) end
  redis.call('ZADD', P .. ':failures', now, ikey)
else
  if exists then
    redis.call('HSET', key, 'la', now)
    redis.call('HDEL', key, 'le')
  end
  redis.call('ZREM', P .. ':failures', ikey)
end
for i, marks in ipairs({P .. ':dirty', P .. ':dirty:sync'}) do
  local d = redis.call('ZSCORE', marks, ikey)
  if d and seen[i] and tonumber(d) <= seen[i] then redis.call('ZREM', marks, ikey) end
end
local sync = redis.call('GET', P .. ':sync:active')
if sync then
  local pending = P .. ':sync:' .. sync .. ':pending'
  local queued = redis.call('ZSCORE', pending, ikey)
  if queued and tonumber(queued) <= started then
    redis.call('ZREM', pending, ikey)
    local record = P .. ':sync:' .. sync
    redis.call('HINCRBY', record, 'c:' .. k .. ':' .. result, 1)
    for method, n in pairs(cjson.decode(requests)) do redis.call('HINCRBY', record, 'r:' .. method, n) end
  end
end
return 1
`;
