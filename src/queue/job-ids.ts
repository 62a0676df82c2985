import { createHash } from 'node:crypto';
import type { IdentityKey } from '../domain/identity.js';

/**
 * Every BullMQ job id and deduplication id is built here. BullMQ refuses custom job ids that
 * contain ':' or are integers, and source ids may contain anything, so ids are made of a kind word
 * and a hex digest.
 */

/** One reconcile job per identity at a time: the deduplication id of an identity's jobs. */
export function reconcileDedupId(key: IdentityKey): string {
  return `${key.kind}-${digest(key.id)}`;
}

/** A full reconciliation's job id (also its sync id): time-ordered and unique. */
export function newSyncId(now: number, random: string): string {
  return `sync-${now.toString(36)}-${random}`;
}

export function isSyncId(value: string): boolean {
  return /^sync-[0-9a-z]+-[0-9a-z]+$/.test(value);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** The scheduler of one recurring read of an input (owner names hold ':'). */
export function inputReadSchedulerId(read: string, owner: string): string {
  return `${read}-${digest(owner)}`;
}

/** The job that continues a held sync once approved. */
export function approveJobId(syncId: string): string {
  return `${syncId}-approve`;
}
