/**
 * Okta's rate limits as its reference describes them: each endpoint has its own bucket of requests
 * per minute; every answer carries `X-Rate-Limit-Limit`, `X-Rate-Limit-Remaining` and
 * `X-Rate-Limit-Reset` (UTC epoch seconds when the bucket refills) for the bucket the request
 * counted against; a request to an exhausted bucket is answered 429 E0000047 until the reset.
 */

export type Bucket =
  | 'users.list'
  | 'users.get'
  | 'users.groups'
  | 'groups.list'
  | 'groups.get'
  | 'groups.users'
  | 'logs'
  | 'other';

/** Requests per minute by bucket (an org's defaults vary; these are of the order Okta lists). */
const LIMITS: Record<Bucket, number> = {
  'users.list': 600,
  'users.get': 600,
  'users.groups': 600,
  'groups.list': 500,
  'groups.get': 500,
  'groups.users': 500,
  logs: 120,
  other: 600,
};

const WINDOW_MS = 60_000;

interface Window {
  limit: number;
  remaining: number;
  /** When the bucket refills (ms, a whole second). */
  resetAt: number;
}

export class OktaRateLimits {
  private readonly windows = new Map<Bucket, Window>();

  /** Counts a request; `limited` when the bucket was already empty. */
  take(bucket: Bucket, now = Date.now()): { limited: boolean; headers: Record<string, string> } {
    const window = this.window(bucket, now);
    const limited = window.remaining <= 0;
    if (!limited) window.remaining--;
    return { limited, headers: headersOf(window) };
  }

  /** Scripts a bucket: `remaining` requests left until a reset `resetInSeconds` from now. */
  set(bucket: Bucket, remaining: number, resetInSeconds: number, now = Date.now()): void {
    this.windows.set(bucket, {
      limit: LIMITS[bucket],
      remaining,
      resetAt: Math.ceil((now + resetInSeconds * 1000) / 1000) * 1000,
    });
  }

  private window(bucket: Bucket, now: number): Window {
    const current = this.windows.get(bucket);
    if (current && now < current.resetAt) return current;
    const fresh = {
      limit: LIMITS[bucket],
      remaining: LIMITS[bucket],
      resetAt: Math.ceil((now + WINDOW_MS) / 1000) * 1000,
    };
    this.windows.set(bucket, fresh);
    return fresh;
  }
}

function headersOf(window: Window): Record<string, string> {
  return {
    'x-rate-limit-limit': String(window.limit),
    'x-rate-limit-remaining': String(Math.max(window.remaining, 0)),
    'x-rate-limit-reset': String(window.resetAt / 1000),
  };
}

/** The bucket of a request path. */
export function bucketOf(pathname: string): Bucket {
  const parts = pathname.split('/').filter(Boolean);
  const [api, v1, collection, id, tail] = parts;
  if (api !== 'api' || v1 !== 'v1') return 'other';
  if (collection === 'logs' && parts.length === 3) return 'logs';
  if (collection === 'users') {
    if (id === undefined) return 'users.list';
    return tail === 'groups' ? 'users.groups' : 'users.get';
  }
  if (collection === 'groups') {
    if (id === undefined) return 'groups.list';
    return tail === 'users' ? 'groups.users' : 'groups.get';
  }
  return 'other';
}
