import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';

/** Where the System Log poller continues: the `after` of Okta's last `next` link, or a start time. */
export type OktaLogCursor = { after: string } | { since: string };

/** Which path saw an Okta event first. */
export type OktaEventPath = 'hook' | 'poll';

/** How long an event's first-seen mark is kept: as long as the store remembers applied uuids. */
export const FIRST_SEEN_TTL_SECONDS = 24 * 3600;

/**
 * What the okta input keeps of Okta's events (keys.ts, P:okta:*): the System Log poller's cursor,
 * and a mark per event `uuid` set once — SET NX, for 24 hours — by whichever path saw the event
 * first, the hook or the poller. The hooks' marks tell the poller which events already arrived;
 * the marks it sets itself are the hooks that were missed.
 */
export class OktaLogStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async cursor(): Promise<OktaLogCursor | undefined> {
    const raw = await storeCall(() => this.redis.get(this.keys.oktaLogCursor()));
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    if (typeof parsed.after === 'string') return { after: parsed.after };
    if (typeof parsed.since === 'string') return { since: parsed.since };
    return undefined;
  }

  async setCursor(cursor: OktaLogCursor): Promise<void> {
    await storeCall(() => this.redis.set(this.keys.oktaLogCursor(), JSON.stringify(cursor)));
  }

  /** Whether a full read of the okta input is owed (a refused cursor) and has not started yet. */
  async fullReadOwed(): Promise<boolean> {
    return (await storeCall(() => this.redis.exists(this.keys.oktaLogFullReadOwed()))) === 1;
  }

  async setFullReadOwed(owed: boolean): Promise<void> {
    const key = this.keys.oktaLogFullReadOwed();
    if (owed) await storeCall(() => this.redis.set(key, '1'));
    else await storeCall(() => this.redis.del(key));
  }

  /** Of these uuids, those no path has marked yet. */
  async unseen(uuids: readonly string[]): Promise<string[]> {
    if (uuids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const uuid of uuids) pipeline.exists(this.keys.oktaFirstSeen(uuid));
    const replies = await execPipeline(pipeline);
    return uuids.filter((_, i) => replies[i] === 0);
  }

  /** Marks each uuid as seen by `path` unless already marked; returns those this call marked. */
  async markSeen(uuids: readonly string[], path: OktaEventPath): Promise<string[]> {
    if (uuids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const uuid of uuids) {
      pipeline.set(this.keys.oktaFirstSeen(uuid), path, 'EX', FIRST_SEEN_TTL_SECONDS, 'NX');
    }
    const replies = await execPipeline(pipeline);
    return uuids.filter((_, i) => replies[i] === 'OK');
  }
}
