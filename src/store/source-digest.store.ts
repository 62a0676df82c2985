import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { KEEP_DIGEST } from './lua/input.lua.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

const keepDigest = new LuaScript(KEEP_DIGEST);

/**
 * The digest of each input's source as its last applied full read found it (keys.ts,
 * P:input:digests): a full sync whose source gives the same digest again plans from the desired
 * state instead of reading the source (sync/sync-read.ts). The digest stands for the desired state
 * that read wrote, so anything else that writes the input's identities forgets it — every batch of
 * the store (DesiredStateStore.apply) for its owner but a full sync's own, a resolved conflict
 * and the owner migration for every input — and the next full sync reads the source again. A sync
 * marks the owner before it writes (`expect`) and keeps its digest at the end only if the mark is
 * still there (`keep`): a write of another path meanwhile deleted it.
 */
export class SourceDigestStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async get(owner: string): Promise<string | undefined> {
    return (await storeCall(() => this.redis.hget(this.keys.sourceDigests(), owner))) ?? undefined;
  }

  /** Marks the owner before a sync writes its identities (and forgets its digest meanwhile). */
  async expect(owner: string, syncId: string): Promise<void> {
    await storeCall(() => this.redis.hset(this.keys.sourceDigests(), owner, mark(syncId)));
  }

  /** Keeps the digest of what the sync read, unless another path wrote the owner's identities. */
  async keep(owner: string, syncId: string, digest: string): Promise<boolean> {
    const args = [owner, mark(syncId), digest];
    return (await storeCall(() => keepDigest.run(this.redis, [this.keys.sourceDigests()], args))) === 1;
  }
}

/** A sync's mark: never a digest (digests start with their format). */
function mark(syncId: string): string {
  return `writing:${syncId}`;
}
