/**
 * The first step of APPLY_BATCH (desired-state.lua.ts), before anything is written: every op is
 * checked, and each upsert's index entries are decoded once here (kept as op.new) — a lone
 * surrogate, a wrong type or an unknown op found later would leave the ops before it written, as
 * Redis does not roll a script back. Uses the script's `batch`, `ops`, `OWNER`, `eventCount`, `letter`
 * and `entries`; returns {invalid = {index, reason}} (index from 0) for the first op it cannot apply.
 */
export const CHECK_OPS = `
local KNOWN = {upsertUser = 1, deleteUser = 1, upsertGroup = 1, deleteGroup = 1, addMembers = 1, removeMembers = 1}
local function optionalString(v) return v == nil or type(v) == 'string' end
local function stringList(list)
  if type(list) ~= 'table' then return false end
  for _, v in ipairs(list) do if type(v) ~= 'string' then return false end end
  return true
end
local function decodedEntries(op)
  if type(op.doc) ~= 'string' or not optionalString(op.ix) then return nil end
  local ok, new = pcall(entries, letter(op), op.doc, op.ix)
  if not ok or type(new) ~= 'table' or type(new.n) ~= 'string' then return nil end
  if new.x ~= nil and type(new.x) ~= 'string' then return nil end
  if new.e ~= nil and not stringList(new.e) then return nil end
  return new
end
local function problem(op)
  if not KNOWN[op.op] then return 'unknown op ' .. tostring(op.op) end
  if type(op.id) ~= 'string' or op.id == '' then return 'no id' end
  if op.evt ~= nil and not tonumber(op.evt) then return 'the event time is not a number' end
  if not (optionalString(op.entry) and optionalString(op.extra) and optionalString(op.ifv)) then
    return 'a field of the wrong type'
  end
  if op.entry and op.entry ~= '' then
    local ok, entry = pcall(cjson.decode, op.entry)
    if not ok or type(entry) ~= 'table' then return 'the history entry is not decodable' end
  end
  if op.op == 'upsertUser' or op.op == 'upsertGroup' then
    op.new = decodedEntries(op)
    if not op.new then return 'the document or its index entries are not decodable' end
  end
  local needsMembers = op.op == 'addMembers' or op.op == 'removeMembers'
  if (needsMembers or op.members ~= nil) and not stringList(op.members) then return 'members are not a list of ids' end
  return nil
end
for i, op in ipairs(ops) do
  local reason = 'not an op'
  if type(op) == 'table' then reason = problem(op) end
  if reason then return cjson.encode({invalid = {index = i - 1, reason = reason}}) end
end
if type(OWNER) ~= 'string' or OWNER == '' or string.find(OWNER, '\\n', 1, true) then
  return cjson.encode({invalid = {index = -1, reason = 'the batch names no owner'}})
end
if eventCount > 0 then
  local ttl = tonumber(batch.events.ttl)
  if not ttl or ttl < 1 or ttl ~= math.floor(ttl) or not stringList(batch.events.ids) then
    return cjson.encode({invalid = {index = -1, reason = 'the event ids or their time to live'}})
  end
end
`;
