import { createHash, randomBytes } from 'node:crypto';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/**
 * Browser sessions of the queue board (bull-board cannot send a bearer header), kept in Redis so
 * that they expire on the server and end at sign-out, whichever process served them. The cookie
 * holds a random id; Redis holds only its SHA-256, so a copy of Redis opens no session. The stored
 * value is what the session was opened with (an HMAC of the admin token), which the caller compares
 * with the current one: a rotated token ends every session.
 */
export class AdminSessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Opens a session for `ttlSeconds`; returns the id the cookie carries. */
  async open(value: string, ttlSeconds: number): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await storeCall(() => this.redis.set(this.key(id), value, 'EX', ttlSeconds));
    return id;
  }

  /** The value a live session was opened with; undefined once it expired or was closed. */
  async read(id: string): Promise<string | undefined> {
    if (!isSessionId(id)) return undefined;
    return (await storeCall(() => this.redis.get(this.key(id)))) ?? undefined;
  }

  async close(id: string): Promise<void> {
    if (isSessionId(id)) await storeCall(() => this.redis.del(this.key(id)));
  }

  private key(id: string): string {
    return this.keys.adminSession(createHash('sha256').update(id).digest('hex'));
  }
}

function isSessionId(id: string): boolean {
  return /^[\w-]{43}$/.test(id);
}
