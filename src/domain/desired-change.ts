import type { DesiredGroup, DesiredUser, IdentityKey } from './identity.js';

/**
 * The changes every input makes to the desired state, as the store applies them (one atomic batch,
 * src/store/desired-state.store.ts). Sources build them; the store and full syncs apply them.
 */

/**
 * The input that owns an identity (SPEC §6, Ownership): SCIM push, signed generic events, Okta
 * Event Hooks, or a directory source by name (`directory:<DIRECTORY_NAME>`). An input changes only
 * what it owns; the store enforces it (src/store/lua/desired-state-owner.lua.ts).
 */
export type Owner = 'scim' | 'events' | 'okta' | `directory:${string}`;

/** A directory name: what DIRECTORY_NAME and a pushed snapshot's `source` accept. */
export const DIRECTORY_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export function directoryOwner(name: string): Owner {
  return `directory:${name}`;
}

/** Whether a stored text is an owner this bridge writes (anything else is shown as it is). */
export function isOwner(text: string): text is Owner {
  if (text === 'scim' || text === 'events' || text === 'okta') return true;
  return text.startsWith('directory:') && DIRECTORY_NAME_PATTERN.test(text.slice('directory:'.length));
}

/** Where a change came from, for the identity's history. */
export interface Signal {
  source: 'scim' | 'events' | 'okta' | 'snapshot' | 'admin' | 'directory';
  detail?: string;
}

export interface ChangeOptions {
  signal?: Signal;
  /** Applies the change only while the identity is still at this version (read-modify-write). */
  ifVersion?: number;
  /** Applies the change only if newer than the last event applied to the identity (ms). */
  eventTime?: number;
  /** 'unique' refuses a userName/displayName held by another identity; 'force' takes it over. */
  mode?: 'unique' | 'force';
  /** Index into the batch's event ids: the change is skipped when that event was seen before. */
  eventIndex?: number;
}

export type GroupInput = Omit<DesiredGroup, 'members'> & { members?: readonly string[] };

/**
 * One change to the desired state. `extra` holds attributes the bridge keeps for its own SCIM
 * server but does not manage on the target (undefined: leave as is, null: clear).
 */
export type DesiredChange = ChangeOptions &
  (
    | { op: 'upsertUser'; user: DesiredUser; extra?: unknown; clean?: boolean }
    | { op: 'deleteUser'; id: string }
    | { op: 'upsertGroup'; group: GroupInput; extra?: unknown; clean?: boolean }
    | { op: 'deleteGroup'; id: string }
    | { op: 'addMembers' | 'removeMembers'; groupId: string; userIds: readonly string[] }
  );

/**
 * `owned-elsewhere`: the identity belongs to another input, nothing changed (an upsert also
 * records a conflict). `parked`: stored, but another input's identity holds its userName /
 * displayName or externalId, so it is not reconciled until an admin resolves the conflict.
 */
export type WriteStatus =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'deleted'
  | 'absent'
  | 'stale'
  | 'changed'
  | 'skipped'
  | 'owned-elsewhere'
  | 'parked';

export interface BatchResult {
  /** One status per change, in order. */
  results: WriteStatus[];
  /** Event ids seen before: their changes were skipped. */
  duplicates: string[];
  /** Identities marked dirty: the reconcile jobs owed. */
  touched: IdentityKey[];
}

export interface BatchOptions {
  /**
   * The input making the changes, which owns what it creates. A batch that names none is the
   * configured directory's (DesiredStateStore's default owner).
   */
  owner?: Owner;
  /**
   * Event ids to remember for `ttlSeconds` (per source): a change whose `eventIndex` points at an
   * id seen before is skipped, and the id is reported in `duplicates`.
   */
  events?: { source: string; ids: readonly string[]; ttlSeconds: number };
  /**
   * A running full sync enqueues the jobs these changes owe itself, users before groups: their
   * dirty marks are left to the sweep (in case the sync dies) rather than fed to the queue at once.
   */
  forSync?: boolean;
}
