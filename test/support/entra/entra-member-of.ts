import { forbidden, notFound, type GraphCall } from './entra-graph-call.js';
import { page, type ListSettings } from './entra-lists.js';
import { memberJson } from './entra-objects.js';
import { allows, reads } from './entra-permissions.js';
import { pageSize, refuseUnmodelled, selection } from './entra-query.js';
import type { Reply } from './entra-replies.js';
import { OrderedIds } from './ordered-ids.js';

/**
 * `GET /users/{id | userPrincipalName}/transitiveMemberOf` and `/groups/{id}/transitiveMemberOf`
 * (user-list-transitivememberof.md, group-list-transitivememberof.md): the groups an object is in,
 * directly or through nested groups, nearest first. Application permission: User.Read.All (or
 * GroupMember.Read.All and the directory-wide ones) for a user, GroupMember.Read.All for a group.
 * Default page 100, `$top` up to 999, `$select` over group properties. Directory roles and
 * administrative units are not modelled (the emulation has none); nor are the advanced-query
 * options (`$filter`, `$search`, `$count`, casts), which answer 501.
 */
export function listTransitiveMemberOf(
  call: GraphCall,
  kind: 'user' | 'group',
  key: string,
  settings: ListSettings,
): Reply {
  const permitted =
    allows(call.token.roles, 'members') || (kind === 'user' && allows(call.token.roles, 'users'));
  if (!permitted) return forbidden(call);
  refuseUnmodelled(call.options, ['$filter', '$orderby', '$search', '$expand', '$count']);
  const { directory } = call.tenant;
  const object = directory.find(key, kind);
  if (!object) return notFound(call, key);
  const select = selection(call.options, ['group']);
  const top = pageSize(call.options, 100);
  const groups = new OrderedIds();
  enclosingGroups(call, object.id).forEach((id, i) => groups.add(id, i + 1));
  return page(call, groups, top, settings, 'directoryObjects', select, (id) => {
    const group = directory.find(id, 'group');
    return group ? memberJson(group, select, reads(call.token.roles, 'group')) : undefined;
  });
}

/** The live groups holding `id`, then those holding them, and so on; each once, cycles ended. */
function enclosingGroups(call: GraphCall, id: string): string[] {
  const { directory } = call.tenant;
  const found: string[] = [];
  const seen = new Set<string>([id]);
  let frontier = [id];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const member of frontier) {
      for (const groupId of directory.groupsOf(member)) {
        if (seen.has(groupId) || !directory.find(groupId, 'group')) continue;
        seen.add(groupId);
        found.push(groupId);
        next.push(groupId);
      }
    }
    frontier = next;
  }
  return found;
}
