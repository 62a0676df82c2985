/**
 * Scripted service faults (errors.md; throttling.md): 429 with or without `Retry-After` — "It is
 * possible to receive 429 … even when the following limits are not reached" — and 503/504, on the
 * next N requests, on every Nth, or on a seeded random fraction. Rules add up; the first that
 * fires answers the request.
 */
export interface FaultReply {
  status: 429 | 503 | 504;
  /** Seconds for `Retry-After`; null sends none. Default: 1 for 429 and 503, none for 504. */
  retryAfter?: number | null;
}

export type FaultTarget = 'graph' | 'token';

type Rule =
  | { kind: 'next'; remaining: number }
  | { kind: 'every'; n: number; seen: number }
  | { kind: 'random'; fraction: number; random: () => number };

export class Faults {
  private rules: { rule: Rule; reply: FaultReply; target: FaultTarget }[] = [];

  next(count: number, reply: FaultReply, target: FaultTarget = 'graph'): void {
    this.add({ kind: 'next', remaining: positive(count) }, reply, target);
  }

  every(n: number, reply: FaultReply, target: FaultTarget = 'graph'): void {
    this.add({ kind: 'every', n: positive(n), seen: 0 }, reply, target);
  }

  randomly(fraction: number, seed: number, reply: FaultReply, target: FaultTarget = 'graph'): void {
    if (!(fraction > 0 && fraction < 1)) throw new Error(`a fraction between 0 and 1, not ${fraction}`);
    this.add({ kind: 'random', fraction, random: mulberry32(seed) }, reply, target);
  }

  clear(): void {
    this.rules = [];
  }

  /** The fault this request meets, if any (every rule of the target counts the request). */
  pick(target: FaultTarget): FaultReply | undefined {
    let picked: FaultReply | undefined;
    for (const entry of this.rules) {
      if (entry.target !== target) continue;
      if (fires(entry.rule)) picked ??= entry.reply;
    }
    this.rules = this.rules.filter((e) => e.rule.kind !== 'next' || e.rule.remaining > 0);
    return picked;
  }

  private add(rule: Rule, reply: FaultReply, target: FaultTarget): void {
    if (![429, 503, 504].includes(reply.status))
      throw new Error(`a fault answers 429, 503 or 504, not ${reply.status}`);
    this.rules.push({ rule, reply, target });
  }
}

function fires(rule: Rule): boolean {
  if (rule.kind === 'next') return rule.remaining-- > 0;
  if (rule.kind === 'every') return ++rule.seen % rule.n === 0;
  return rule.random() < rule.fraction;
}

function positive(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`a positive whole number, not ${n}`);
  return n;
}

/** A small seeded generator (mulberry32): the same seed gives the same faults on every run. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function retryAfterOf(reply: FaultReply): number | null {
  if (reply.retryAfter !== undefined) return reply.retryAfter;
  return reply.status === 504 ? null : 1;
}
