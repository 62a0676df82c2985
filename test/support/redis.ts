import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** The shared test Redis (a private redis-server, or REDIS_URL). */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

/** A fresh hash-tagged key prefix, so a test only ever sees keys it created. */
export function uniquePrefix(label = 't'): string {
  return `{${label}-${randomBytes(6).toString('hex')}}`;
}

/** Deletes every key under a prefix (SCAN, never FLUSH). */
export async function deleteKeys(prefix: string): Promise<void> {
  const client = new Redis(testRedisUrl(), { lazyConnect: false, maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
