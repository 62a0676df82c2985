import type { DesiredGroup, DesiredUser, IdentityKey } from './identity.js';

/**
 * The changes every input makes to the desired state, as the store applies them (one atomic batch,
 * src/store/desired-state.store.ts). Sources build them; the store and full syncs apply them.
 */

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

export type WriteStatus =
  'created' | 'updated' | 'unchanged' | 'deleted' | 'absent' | 'stale' | 'changed' | 'skipped';

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
