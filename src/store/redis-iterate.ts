import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/** A list's items in order, `batch` at a time (LRANGE). */
export async function* sliceList(redis: RedisClient, key: string, batch: number): AsyncGenerator<string[]> {
  for (let start = 0; ; start += batch) {
    const items = await storeCall(() => redis.lrange(key, start, start + batch - 1));
    if (items.length > 0) yield items;
    if (items.length < batch) return;
  }
}

/** A sorted set's members by rank, `batch` at a time (ZRANGE). */
export async function* sliceSortedSet(
  redis: RedisClient,
  key: string,
  batch: number,
): AsyncGenerator<string[]> {
  for (let start = 0; ; start += batch) {
    const members = await storeCall(() => redis.zrange(key, start, start + batch - 1));
    if (members.length > 0) yield members;
    if (members.length < batch) return;
  }
}

/** A set's members, about `batch` at a time (SSCAN: each member once, in no order). */
export async function* scanSet(redis: RedisClient, key: string, batch: number): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, members] = await storeCall(() => redis.sscan(key, cursor, 'COUNT', batch));
    cursor = next;
    if (members.length > 0) yield members;
  } while (cursor !== '0');
}

/** A hash's fields and values, about `batch` at a time (HSCAN). */
export async function* scanHash(
  redis: RedisClient,
  key: string,
  batch: number,
): AsyncGenerator<[string, string][]> {
  let cursor = '0';
  do {
    const [next, flat] = await storeCall(() => redis.hscan(key, cursor, 'COUNT', batch));
    cursor = next;
    const pairs: [string, string][] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i] ?? '', flat[i + 1] ?? '']);
    if (pairs.length > 0) yield pairs;
  } while (cursor !== '0');
}
