import type { IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';

/**
 * Names and platform ids of identities, many at once, for the admin API's views (a plan's changes,
 * a group's members, a user's groups, a group on the platform). Reads the key layout of keys.ts:
 * the desired-state document (its first element is the userName / displayName, domain/canonical.ts),
 * the identity hash's target id `t`, and the target-id index. Never writes.
 */

/** Ids read in one round trip: a page of a view, never a whole directory. */
const BATCH = 500;

export class IdentityNameQueries {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /**
   * userName (users) or displayName (groups) by source id, for the identities still in the desired
   * state; an id without a desired state (removed, or never stored) is left out.
   */
  async names(kind: IdentityKind, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const batch of batches(unique(ids))) {
      const docs = await storeCall(() => this.redis.mget(...batch.map((id) => this.keys.doc(kind, id))));
      batch.forEach((id, i) => {
        const name = nameOf(docs[i]);
        if (name !== undefined) out.set(id, name);
      });
    }
    return out;
  }

  /** The platform id the bridge recorded for each source id that has one. */
  async targetIds(kind: IdentityKind, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const batch of batches(unique(ids))) {
      const pipeline = this.redis.pipeline();
      for (const id of batch) pipeline.hget(this.keys.identity(kind, id), 't');
      const answers = await execPipeline(pipeline);
      batch.forEach((id, i) => {
        const value = answers[i];
        if (typeof value === 'string' && value !== '') out.set(id, value);
      });
    }
    return out;
  }

  /** The source id the bridge knows for each platform id (the target-id index). */
  async sourceIds(kind: IdentityKind, targetIds: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const batch of batches(unique(targetIds))) {
      const ids = await storeCall(() => this.redis.hmget(this.keys.targetIdIndex(kind), ...batch));
      batch.forEach((targetId, i) => {
        const id = ids[i];
        if (id) out.set(targetId, id);
      });
    }
    return out;
  }
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

function batches(ids: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) out.push(ids.slice(i, i + BATCH));
  return out;
}

/** The first element of a stored document; anything unreadable gives no name rather than failing. */
function nameOf(doc: string | null | undefined): string | undefined {
  if (!doc) return undefined;
  try {
    const parsed = JSON.parse(doc) as unknown;
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : undefined;
  } catch {
    return undefined;
  }
}
