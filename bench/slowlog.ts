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
 * BENCH_REDIS_TIME=1 records every command, not only those of 1 ms and over, and adds where the
 * sync's Redis time went, by script or command (SLOWLOG keeps up to 3,000,000 entries meanwhile:
 * Redis's own memory figures then include them).
 */
const EVERY_COMMAND = process.env.BENCH_REDIS_TIME === '1';

/**
 * Records every Redis command that holds the server 1 ms or more while `during` runs, and names the
 * longest: how long one script or command of a sync makes every other client wait.
 */
export async function longestCommands<T>(
  client: Redis,
  names: Map<string, string>,
  during: () => Promise<T>,
): Promise<{ result: T; longest: string; total?: string }> {
  await client.config('SET', 'slowlog-log-slower-than', EVERY_COMMAND ? '0' : '1000');
  await client.config('SET', 'slowlog-max-len', EVERY_COMMAND ? '3000000' : '100000');
  await client.slowlog('RESET');
  const result = await during();
  const entries = (await client.slowlog('GET', -1)) as [number, number, number, string[], string][];
  await client.slowlog('RESET');
  // A script's own commands are logged too, from client '?:0': its time already holds theirs.
  const named = entries
    .filter(([, , , , client]) => client !== '?:0')
    .map(([, , micros, args]) => ({ micros, name: nameOf(args, names) }))
    .filter((entry) => entry.name !== 'slowlog' && entry.name !== 'config');
  const longest = summary(named.filter((entry) => entry.micros >= 1000));
  return { result, longest, ...(EVERY_COMMAND ? { total: totals(named) } : {}) };
}

/** Redis time by script or command, the largest first (ms, and how many calls). */
function totals(named: readonly { micros: number; name: string }[]): string {
  const byName = new Map<string, { micros: number; calls: number }>();
  for (const { micros, name } of named) {
    const seen = byName.get(name) ?? { micros: 0, calls: 0 };
    byName.set(name, { micros: seen.micros + micros, calls: seen.calls + 1 });
  }
  const sum = named.reduce((total, entry) => total + entry.micros, 0);
  const top = [...byName].sort((a, b) => b[1].micros - a[1].micros).slice(0, 10);
  const parts = top.map(([name, e]) => `${name} ${Math.round(e.micros / 1000)} ms (${e.calls})`);
  return `${Math.round(sum / 1000)} ms in all; ${parts.join(', ')}`;
}

function summary(named: readonly { micros: number; name: string }[]): string {
  const byName = new Map<string, { max: number; over: number }>();
  for (const { micros, name } of named) {
    const seen = byName.get(name) ?? { max: 0, over: 0 };
    byName.set(name, { max: Math.max(seen.max, micros), over: seen.over + (micros > 10_000 ? 1 : 0) });
  }
  const worst = [...byName].sort((a, b) => b[1].max - a[1].max).slice(0, 4);
  const max = worst[0]?.[1].max ?? 0;
  const top = worst.map(([name, e]) => `${name} ${(e.max / 1000).toFixed(1)} ms (${e.over} over 10 ms)`);
  return `max ${(max / 1000).toFixed(1)} ms; ${top.join(', ') || 'none over 1 ms'}`;
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
