import type { EntraClock } from './entra-clock.js';

/**
 * Identity and access throttling (throttling-limits.md "Identity and access service limits"): a
 * token bucket of resource units per application+tenant pair — 3,500 / 5,000 / 8,000 RU per 10
 * seconds for tenants of under 50, up to 500, and more users — that each request draws its cost
 * from: GET users 2, groups/{id}/members 3, groups/{id}/transitiveMembers 5, any other GET 1;
 * `$select` −1, `$expand` +1, `$top` under 20 −1; never under 1. Throttled requests still count
 * (throttling.md). Answers carry `x-ms-resource-unit`, and `x-ms-throttle-limit-percentage` once
 * over 80% of the limit.
 */
const WINDOW_MS = 10_000;

export function tenantQuota(users: number): number {
  if (users < 50) return 3_500;
  return users <= 500 ? 5_000 : 8_000;
}

export function requestCost(path: string[], options: Map<string, string>): number {
  const [collection, id, relation] = path;
  let cost = 1;
  if (collection === 'users' && path.length === 1) cost = 2;
  if (collection === 'groups' && id !== undefined && relation === 'members') cost = 3;
  if (collection === 'groups' && id !== undefined && relation === 'transitiveMembers') cost = 5;
  if (options.has('$select')) cost--;
  if (options.has('$expand')) cost++;
  const top = Number(options.get('$top'));
  if (Number.isInteger(top) && top < 20) cost--;
  return Math.max(cost, 1);
}

interface Bucket {
  level: number;
  at: number;
}

export interface Drawn {
  /** Set when the bucket could not cover the cost: seconds until it could. */
  retryAfter?: number;
  headers: Record<string, string>;
}

export class ResourceUnitBuckets {
  private readonly buckets = new Map<string, Bucket>();
  /** Overrides the per-size quota (RU per 10 s); Infinity turns the bucket off. */
  quota: number | undefined;

  constructor(private readonly clock: EntraClock) {}

  draw(pair: string, cost: number, tenantUsers: number): Drawn {
    const capacity = this.quota ?? tenantQuota(tenantUsers);
    const headers: Record<string, string> = { 'x-ms-resource-unit': String(cost) };
    if (capacity === Infinity) return { headers };
    const now = this.clock.now();
    const bucket = this.buckets.get(pair) ?? { level: capacity, at: now };
    bucket.level = Math.min(capacity, bucket.level + ((now - bucket.at) * capacity) / WINDOW_MS);
    bucket.at = now;
    const enough = bucket.level >= cost;
    bucket.level = Math.max(bucket.level - cost, -capacity);
    this.buckets.set(pair, bucket);
    const used = (capacity - bucket.level) / capacity;
    if (used > 0.8) headers['x-ms-throttle-limit-percentage'] = Math.min(used, 1.8).toFixed(1);
    if (enough) return { headers };
    const retryAfter = Math.max(1, Math.ceil(((cost - bucket.level) * WINDOW_MS) / capacity / 1000));
    return { retryAfter, headers };
  }

  /** Empties the pair's bucket (a test makes the next request throttled). */
  drain(pair: string): void {
    this.buckets.set(pair, { level: 0, at: this.clock.now() });
  }

  reset(): void {
    this.buckets.clear();
  }
}
