import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-connection.js';

export type ScriptArg = string | number;

/**
 * A Lua script run by SHA (EVALSHA), loading it on NOSCRIPT. Every key the script touches is built in
 * keys.ts and handed in as `keys` (its KEYS), which also routes the call to the keys' slot on a
 * Cluster; the script's other inputs are `args` (its ARGV).
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: readonly string[], args: readonly ScriptArg[] = []): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
