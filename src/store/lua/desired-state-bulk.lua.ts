import type { IdentityKind } from '../../domain/identity.js';
import type { Keys } from '../keys.js';

/**
 * One call per batch of ids, answering a flat array — desired JSON, target id, managed flag,
 * pending create, and (groups) the member ids joined by line breaks — instead of several replies
 * per identity: a full sync reads 100,000 identities and each reply costs objects to parse.
 * KEYS: per id, its identity hash and doc, and for groups its member set (bulkReadKeys); ARGV[1]
 * the number of keys per id (2 or 3).
 */
export const BULK_READ = `
local per = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS, per do
  local f = redis.call('HMGET', KEYS[i], 't', 'm', 'pc')
  out[#out + 1] = redis.call('GET', KEYS[i + 1]) or ''
  out[#out + 1] = f[1] or ''
  out[#out + 1] = f[2] or ''
  out[#out + 1] = f[3] or ''
  if per == 3 then out[#out + 1] = table.concat(redis.call('SMEMBERS', KEYS[i + 2]), '\\n') end
end
return out
`;

export function bulkReadKeys(keys: Keys, kind: IdentityKind, ids: readonly string[]): string[] {
  return ids.flatMap((id) => [
    keys.identity(kind, id),
    keys.doc(kind, id),
    ...(kind === 'group' ? [keys.members(id)] : []),
  ]);
}
