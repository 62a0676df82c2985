import type { DeltaResource, LogEntry } from './entra-delta-log.js';
import type { Directory } from './entra-directory.js';
import {
  deltaJson,
  defaultsOf,
  odataType,
  type DirectoryObject,
  type ObjectKind,
  type Props,
} from './entra-objects.js';
import type { OrderedIds } from './ordered-ids.js';

/**
 * The pages of a delta round (delta-query-overview.md, delta-query-groups.md, user-delta.md).
 * The server chooses the page size: at most `objectsPerPage` objects and `membersPerPage`
 * `members@delta` entries a page; a group whose members do not fit is split and the same group
 * comes again on the next page with the next members. The initial round walks the collection
 * (soft-deleted objects as `@removed: changed`); a later round reports each object changed since
 * the token once, netted from the log: removed objects as `@removed`, others with every tracked
 * property (or, with `Prefer: return=minimal`, only the changed ones) — never-set ones left out —
 * and a group's membership changes as `members@delta`, removals with `@removed`.
 */

export interface DeltaPaging {
  objectsPerPage: number;
  membersPerPage: number;
  /** List soft-deleted objects as `@removed: changed` in an initial round. */
  removedInInitialRound: boolean;
}

/** What a round's tokens carry besides the position: the resource, `$select`, `$filter` ids. */
export interface RoundSpec {
  resource: DeltaResource;
  select?: string[];
  ids?: string[];
}

export interface InitialPosition {
  /** The log's head when the round began: its delta link reports what changed after it. */
  start: number;
  /** Sequence number (or, with ids, index) after which the walk resumes. */
  c: number;
  /** A group split across pages: its id and the member sequence number to resume after. */
  split?: { id: string; m: number };
}

export interface ChangesPosition {
  s: number;
  h: number;
  i: number;
  m: number;
}

type MemberRef = Props;
interface Item {
  full: Props;
  minimal: Props;
  members?: MemberRef[];
}

export function trackedNames(spec: RoundSpec): string[] {
  const kind: ObjectKind = spec.resource === 'users' ? 'user' : 'group';
  return spec.select ?? (kind === 'group' ? [...defaultsOf(kind), 'members'] : defaultsOf(kind));
}

export function initialPage(directory: Directory, spec: RoundSpec, at: InitialPosition, paging: DeltaPaging) {
  const value: Props[] = [];
  const names = trackedNames(spec);
  const members = names.includes('members');
  let position: InitialPosition = { ...at };
  let budget = paging.membersPerPage;
  while (value.length < paging.objectsPerPage) {
    if (position.split) {
      const chunk = memberChunk(directory, position.split, budget);
      const object = directory.objects.get(position.split.id);
      if (object && chunk.refs.length > 0)
        value.push({ ...deltaJson(object, names), 'members@delta': chunk.refs });
      budget -= chunk.refs.length;
      if (!chunk.done)
        return { value, next: { ...position, split: { id: position.split.id, m: chunk.cursor } } };
      position = { start: position.start, c: position.c };
      continue;
    }
    const nextId = nextObject(directory, spec, position);
    if (nextId === undefined) return { value };
    position = { start: position.start, c: nextId.c };
    const object = directory.objects.get(nextId.id) as DirectoryObject | undefined;
    if (!object) continue;
    if (object.deletedAt !== undefined) {
      if (paging.removedInInitialRound) value.push({ id: object.id, '@removed': { reason: 'changed' } });
      continue;
    }
    const groupMembers = members ? directory.members.get(object.id) : undefined;
    if (groupMembers && groupMembers.size > 0) {
      position.split = { id: object.id, m: 0 };
      if (budget <= 0) return { value, next: position };
      continue;
    }
    value.push(deltaJson(object, names));
  }
  return { value, next: position };
}

function nextObject(
  directory: Directory,
  spec: RoundSpec,
  at: InitialPosition,
): { id: string; c: number } | undefined {
  if (spec.ids) {
    for (let i = at.c; i < spec.ids.length; i++) {
      const id = spec.ids[i] as string;
      const object = directory.objects.get(id);
      if (object && object.kind === (spec.resource === 'users' ? 'user' : 'group')) return { id, c: i + 1 };
    }
    return undefined;
  }
  const set = spec.resource === 'users' ? directory.users : directory.groups;
  const found = set.page(at.c, 1);
  const id = found.ids[0];
  return id === undefined ? undefined : { id, c: found.cursor };
}

function memberChunk(directory: Directory, split: { id: string; m: number }, budget: number) {
  const set = directory.members.get(split.id) as OrderedIds | undefined;
  if (!set || budget <= 0) return { refs: [], cursor: split.m, done: !set };
  const found = set.page(split.m, budget);
  const refs = found.ids.map((id) => {
    const member = directory.objects.get(id) as DirectoryObject;
    return { '@odata.type': odataType(member.kind), id };
  });
  return { refs, cursor: found.cursor, done: found.done };
}

/** The net changes of (s, h], one item per object, in the order each object first changed. */
export function changedItems(directory: Directory, spec: RoundSpec, entries: LogEntry[]): Item[] {
  const names = trackedNames(spec);
  const tracksMembers = names.includes('members');
  const wanted = spec.ids ? new Set(spec.ids) : undefined;
  const records = new Map<string, { whole: boolean; props: Set<string>; members: Map<string, MemberRef> }>();
  for (const entry of entries) {
    if (wanted && !wanted.has(entry.id)) continue;
    const record = records.get(entry.id) ?? { whole: false, props: new Set<string>(), members: new Map() };
    records.set(entry.id, record);
    if (entry.change === 'created' || entry.change === 'restored') record.whole = true;
    if (entry.change === 'updated') for (const name of entry.props) record.props.add(name);
    if (entry.change === 'member') {
      const ref: MemberRef = { '@odata.type': odataType(entry.memberKind), id: entry.member };
      record.members.set(entry.member, entry.removed ? { ...ref, '@removed': { reason: 'deleted' } } : ref);
    }
  }
  const items: Item[] = [];
  for (const [id, record] of records) {
    const object = directory.objects.get(id);
    if (!object || object.deletedAt !== undefined) {
      const removed = { id, '@removed': { reason: object ? 'changed' : 'deleted' } };
      items.push({ full: removed, minimal: removed });
      continue;
    }
    const changed = names.filter((name) => record.props.has(name));
    const members = tracksMembers ? [...record.members.values()] : [];
    if (!record.whole && changed.length === 0 && members.length === 0) continue;
    const full = deltaJson(object, names);
    const minimal = record.whole ? full : deltaJson(object, changed);
    items.push(
      members.length > 0 || (record.whole && tracksMembers) ? { full, minimal, members } : { full, minimal },
    );
  }
  return items;
}

export function changesPage(items: Item[], at: ChangesPosition, paging: DeltaPaging, minimal: boolean) {
  const value: Props[] = [];
  let budget = paging.membersPerPage;
  let { i, m } = at;
  while (i < items.length && value.length < paging.objectsPerPage) {
    const item = items[i] as Item;
    const json = minimal ? item.minimal : item.full;
    if (!item.members || item.members.length === 0) {
      value.push(json);
      i++;
      continue;
    }
    if (budget <= 0) break;
    const chunk = item.members.slice(m, m + budget);
    value.push({ ...json, 'members@delta': chunk });
    budget -= chunk.length;
    m += chunk.length;
    if (m < item.members.length) return { value, next: { ...at, i, m } };
    i++;
    m = 0;
  }
  return i < items.length || value.length === paging.objectsPerPage
    ? { value, next: { ...at, i, m } }
    : { value };
}
