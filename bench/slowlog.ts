import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

/** The Lua scripts of the store by SHA-1, so that SLOWLOG's EVALSHA entries can be named. */
export async function scriptNames(): Promise<Map<string, string>> {
  const dir = join(import.meta.dirname, '..', 'src', 'store', 'lua');
  const names = new Map<string, string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua.ts'))) {
    const module = (await import(join(dir, file))) as Record<string, unknown>;
    for (const [name, source] of Object.entries(module))
      if (typeof source === 'string') names.set(createHash('sha1').update(source).digest('hex'), name);
  }
  return names;
}

/**
 * Records every Redis command that holds the server 1 ms or more while `during` runs, and names the
 * longest: how long one script or command of a sync makes every other client wait.
 */
export async function longestCommands<T>(
  client: Redis,
  names: Map<string, string>,
  during: () => Promise<T>,
): Promise<{ result: T; longest: string }> {
  await client.config('SET', 'slowlog-log-slower-than', '1000');
  await client.config('SET', 'slowlog-max-len', '100000');
  await client.slowlog('RESET');
  const result = await during();
  const entries = (await client.slowlog('GET', -1)) as [number, number, number, string[]][];
  const named = entries
    .map(([, , micros, args]) => ({ micros, name: nameOf(args, names) }))
    .filter((entry) => entry.name !== 'slowlog' && entry.name !== 'config');
  const byName = new Map<string, { max: number; over: number }>();
  for (const { micros, name } of named) {
    const seen = byName.get(name) ?? { max: 0, over: 0 };
    byName.set(name, { max: Math.max(seen.max, micros), over: seen.over + (micros > 10_000 ? 1 : 0) });
  }
  const worst = [...byName].sort((a, b) => b[1].max - a[1].max).slice(0, 4);
  const max = worst[0]?.[1].max ?? 0;
  const top = worst.map(([name, e]) => `${name} ${(e.max / 1000).toFixed(1)} ms (${e.over} over 10 ms)`);
  const longest = `max ${(max / 1000).toFixed(1)} ms; ${top.join(', ') || 'none over 1 ms'}`;
  return { result, longest };
}

function nameOf(args: readonly string[], names: Map<string, string>): string {
  const command = (args[0] ?? '').toLowerCase();
  if (command === 'evalsha') return names.get(args[1] ?? '') ?? `evalsha ${args[1]?.slice(0, 8)}`;
  if (command === 'eval') {
    const source = args[1] ?? '';
    const named = names.get(createHash('sha1').update(source).digest('hex'));
    return named ?? `eval "${source.replace(/\s+/g, ' ').trim().slice(0, 60)}"`;
  }
  return command;
}
