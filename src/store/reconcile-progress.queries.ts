import { formatKey, type IdentityKey } from '../domain/identity.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { parseStoredError } from './failures.queries.js';
import { execPipeline } from './redis-errors.js';

export interface ReconcileProgress {
  targetId?: string;
  /** A change not reconciled yet: a mark in P:dirty or P:dirty:sync. */
  dirty: boolean;
  /** When its last reconcile run ended (ms, the store's clock). */
  lastAttemptAt?: number;
  /** That run's outcome: an action, `failed`, `retrying` or `parked`. */
  lastResult?: string;
  lastError?: { code: string; message: string; detail?: string };
}

/**
 * Where identities stand in the reconcile pipeline, read in one round trip (fields of the identity
 * hash and the dirty marks, keys.ts): what provisioning on demand waits on. Reads only.
 */
export class ReconcileProgressQueries {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async progress(identities: readonly IdentityKey[]): Promise<ReconcileProgress[]> {
    const out: ReconcileProgress[] = [];
    for (let i = 0; i < identities.length; i += 1000) {
      const batch = identities.slice(i, i + 1000);
      const pipeline = this.redis.pipeline();
      for (const key of batch) {
        pipeline.hmget(this.keys.identity(key.kind, key.id), 't', 'lt', 'lr', 'le');
        pipeline.zscore(this.keys.dirty(), formatKey(key));
        pipeline.zscore(this.keys.dirtyForSync(), formatKey(key));
      }
      const replies = await execPipeline(pipeline);
      batch.forEach((_, n) => {
        const [t, lt, lr, le] = (replies[3 * n] as (string | null)[] | undefined) ?? [];
        const dirty = replies[3 * n + 1] !== null || replies[3 * n + 2] !== null;
        out.push({
          dirty,
          ...(t ? { targetId: t } : {}),
          ...(lt ? { lastAttemptAt: Number(lt) } : {}),
          ...(lr ? { lastResult: lr } : {}),
          ...(le ? { lastError: storedError(le) } : {}),
        });
      });
    }
    return out;
  }
}

function storedError(json: string): ReconcileProgress['lastError'] {
  const parsed = parseStoredError(json) as Partial<Record<string, unknown>> | undefined;
  if (!parsed) return { code: 'unknown', message: json.slice(0, 200) };
  const { code, message, detail } = parsed;
  return {
    code: typeof code === 'string' ? code : 'unknown',
    message: typeof message === 'string' ? message : '',
    ...(typeof detail === 'string' ? { detail } : {}),
  };
}
