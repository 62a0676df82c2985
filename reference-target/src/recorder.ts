import type { FaultName } from './faults.js';

/**
 * Every SCIM request the target received, for tests and benchmarks to assert on ("a dry run sent no
 * writes", "never more than N requests in flight"). Counters are exact; the request list keeps the
 * first `maxRequests` entries.
 */

export interface RecordedRequest {
  method: string;
  /** Normalised: `/Users`, `/Users/:id`, `/Groups/:id`, `/ServiceProviderConfig`… */
  route: string;
  /** The status the client received; 0 when the connection closed without a response. */
  status: number;
  /** ms since the epoch, when the request arrived. */
  startedAt: number;
  durationMs: number;
  /** The scripted fault that decided the answer, if any. */
  fault?: FaultName;
}

export interface TargetStats {
  total: number;
  byMethod: Record<string, number>;
  /** Keyed `METHOD route`, e.g. `PATCH /Users/:id`. */
  byRoute: Record<string, number>;
  /** Keyed by status as a string, e.g. `"201"`. */
  byStatus: Record<string, number>;
  /** The most requests in flight at once since the last reset. */
  maxConcurrency: number;
  inFlight: number;
  requests: RecordedRequest[];
  /** Requests counted but not kept in `requests` (over the recorder's limit). */
  droppedRequests: number;
}

export interface StatsOptions {
  /** Return at most the last `limit` requests (0: none). All by default. */
  limit?: number;
}

/** Collections by lower-cased name: express routes case-insensitively, the recorder spells them one way. */
const COLLECTIONS = new Map(
  ['Users', 'Groups', 'ResourceTypes', 'Schemas', 'ServiceProviderConfig'].map((name) => [
    name.toLowerCase(),
    name,
  ]),
);

/** The route of a path relative to the SCIM base, ids replaced by `:id`. */
export function normaliseRoute(relativePath: string): string {
  const [first, id, ...rest] = relativePath.split('/').filter((segment) => segment !== '');
  if (first === undefined) return '/';
  const collection = COLLECTIONS.get(first.toLowerCase());
  if (collection === undefined || rest.length > 0) return '/(unknown)';
  if (id === undefined) return `/${collection}`;
  return collection === 'ServiceProviderConfig' ? '/(unknown)' : `/${collection}/:id`;
}

export class Recorder {
  private requests: RecordedRequest[] = [];
  private byMethod = new Map<string, number>();
  private byRoute = new Map<string, number>();
  private byStatus = new Map<string, number>();
  private total = 0;
  private dropped = 0;
  private inFlight = 0;
  private maxConcurrency = 0;

  constructor(private readonly maxRequests = 1_000_000) {}

  /** Marks a request in flight; call the returned function once when it is over. */
  begin(): () => void {
    this.inFlight += 1;
    this.maxConcurrency = Math.max(this.maxConcurrency, this.inFlight);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
    };
  }

  record(request: RecordedRequest): void {
    this.total += 1;
    increment(this.byMethod, request.method);
    increment(this.byRoute, `${request.method} ${request.route}`);
    increment(this.byStatus, String(request.status));
    if (this.requests.length < this.maxRequests) this.requests.push(request);
    else this.dropped += 1;
  }

  stats(options: StatsOptions = {}): TargetStats {
    const limit = options.limit ?? this.requests.length;
    return {
      total: this.total,
      byMethod: Object.fromEntries(this.byMethod),
      byRoute: Object.fromEntries(this.byRoute),
      byStatus: Object.fromEntries(this.byStatus),
      maxConcurrency: this.maxConcurrency,
      inFlight: this.inFlight,
      requests: limit <= 0 ? [] : this.requests.slice(-limit).map((request) => ({ ...request })),
      droppedRequests: this.dropped,
    };
  }

  /** Forgets everything recorded; requests still in flight count towards the next maxConcurrency. */
  reset(): void {
    this.requests = [];
    this.byMethod = new Map();
    this.byRoute = new Map();
    this.byStatus = new Map();
    this.total = 0;
    this.dropped = 0;
    this.maxConcurrency = this.inFlight;
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
