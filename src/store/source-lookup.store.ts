import type { StoredLookup } from '../domain/source-lookup.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

const BATCH = 500;
/** The field an empty table holds, so that "read, nothing kept" is told from "never read". */
const PLACEHOLDER = '';

/**
 * One input's source lookup table (keys.ts, P:input:lookup:<owner>): a hash of the source's own
 * keys and values. A full read replaces it whole (written beside, then renamed over: a reader sees
 * the old table or the new); a change read sets and deletes the entries it learned. Only the
 * input's one read at a time writes it.
 */
export class SourceLookupStore implements StoredLookup {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly owner: string,
  ) {}

  async exists(): Promise<boolean> {
    return (await storeCall(() => this.redis.exists(this.key()))) === 1;
  }

  async get(keys: readonly string[]): Promise<(string | undefined)[]> {
    const out: (string | undefined)[] = [];
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH).filter((key) => key !== PLACEHOLDER);
      const values = batch.length === 0 ? [] : await storeCall(() => this.redis.hmget(this.key(), ...batch));
      let at = 0;
      for (const key of keys.slice(i, i + BATCH))
        out.push(key === PLACEHOLDER ? undefined : (values[at++] ?? undefined));
    }
    return out;
  }

  async set(entries: readonly (readonly [string, string])[]): Promise<void> {
    const kept = entries.filter(([key]) => key !== PLACEHOLDER);
    for (let i = 0; i < kept.length; i += BATCH) {
      const flat = kept.slice(i, i + BATCH).flatMap(([key, value]) => [key, value]);
      await storeCall(() => this.redis.hset(this.key(), ...flat));
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    const kept = keys.filter((key) => key !== PLACEHOLDER);
    for (let i = 0; i < kept.length; i += BATCH) {
      const batch = kept.slice(i, i + BATCH);
      await storeCall(() => this.redis.hdel(this.key(), ...batch));
    }
  }

  async replace(entries: Iterable<readonly [string, string]>): Promise<void> {
    const next = this.key(true);
    await storeCall(() => this.redis.del(next));
    let batch: string[] = [PLACEHOLDER, '1'];
    const flush = async () => {
      const flat = batch;
      batch = [];
      if (flat.length > 0) await storeCall(() => this.redis.hset(next, ...flat));
    };
    for (const [key, value] of entries) {
      if (key === PLACEHOLDER) continue;
      batch.push(key, value);
      if (batch.length >= BATCH * 2) await flush();
    }
    await flush();
    await storeCall(() => this.redis.rename(next, this.key()));
  }

  private key(next?: boolean): string {
    return this.keys.inputLookup(this.owner, next);
  }
}
