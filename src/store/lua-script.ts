import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-connection.js';

export type ScriptArg = string | number;

/**
 * A Lua script run by SHA (EVALSHA), loading it on NOSCRIPT. KEYS[1] is always the key prefix: the
 * scripts build their keys from it, and it routes the call to the prefix's slot on a Cluster.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, prefix: string, args: readonly ScriptArg[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, 1, prefix, prefix, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return client.eval(this.source, 1, prefix, prefix, ...args);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
