import type { DesiredUser } from '../../domain/identity.js';
import type { DesiredChange, GroupInput } from '../../domain/desired-change.js';
import type { GenericEvent } from './generic-event.schema.js';

export interface EventBatchChanges {
  /** One change per event, tied to its id by `eventIndex`. */
  changes: DesiredChange[];
  /** Distinct event ids, in order: what the store remembers for 24 h. */
  ids: string[];
  /** Events whose id appeared earlier in the same batch: ignored like any redelivery. */
  repeated: number;
}

/**
 * Turns validated events into desired-state changes. Upserts use mode `force`: a generic event
 * source is authoritative for the identities it names, so a userName or displayName it assigns
 * takes over from another of its own identities that held it (which a later event fixes), rather
 * than failing the whole batch; one held by another input's identity parks the event's identity
 * with a conflict instead (SPEC §6, Ownership). Membership changes may name users or groups the
 * bridge does not hold yet, of any input: they are kept and take effect when those arrive.
 */
export function changesForEvents(events: readonly GenericEvent[]): EventBatchChanges {
  const ids: string[] = [];
  const seen = new Set<string>();
  const changes: DesiredChange[] = [];
  let repeated = 0;
  for (const event of events) {
    if (seen.has(event.id)) {
      repeated++;
      continue;
    }
    seen.add(event.id);
    ids.push(event.id);
    const change = changeFor(event);
    change.eventIndex = ids.length - 1;
    change.mode = 'force';
    change.signal = { source: 'events', detail: `${event.type} ${event.id}` };
    changes.push(change);
  }
  return { changes, ids, repeated };
}

function changeFor(event: GenericEvent): DesiredChange {
  switch (event.type) {
    case 'user.upserted':
      return { op: 'upsertUser', user: toDesiredUser(event.data) };
    case 'user.deleted':
      return { op: 'deleteUser', id: event.data.id };
    case 'group.upserted': {
      const { id, displayName, externalId, members } = event.data;
      const group: GroupInput = { id, displayName };
      if (externalId) group.externalId = externalId;
      if (members) group.members = members;
      return { op: 'upsertGroup', group };
    }
    case 'group.deleted':
      return { op: 'deleteGroup', id: event.data.id };
    case 'group.members.added':
      return { op: 'addMembers', groupId: event.data.id, userIds: event.data.members };
    case 'group.members.removed':
      return { op: 'removeMembers', groupId: event.data.id, userIds: event.data.members };
  }
}

function toDesiredUser(data: Extract<GenericEvent, { type: 'user.upserted' }>['data']): DesiredUser {
  const user: DesiredUser = { id: data.id, userName: data.userName, active: data.active };
  if (data.externalId) user.externalId = data.externalId;
  if (data.name) user.name = data.name;
  if (data.emails) user.emails = data.emails;
  return user;
}
