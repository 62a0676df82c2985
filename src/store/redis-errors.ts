import { BridgeError } from '../domain/errors.js';

const REFUSED = /^(OOM|LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS) /;

/** How long an input is asked to wait (Retry-After) while Redis is unreachable or refuses writes. */
export const STORE_RETRY_AFTER_MS = 5000;

/** Our own refusal to send a command on a fail-fast connection that is not connected. */
export class RedisUnavailableError extends Error {
  constructor(status: string) {
    super(`Redis is unreachable (connection ${status})`);
    this.name = 'RedisUnavailableError';
  }
}

/**
 * ioredis reports an unreachable server with plain Errors; this is the one place that recognises
 * them, so the edges can answer 503 (never 404 or 500) and workers can retry.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof RedisUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE')
    return true;
  if (
    /Connection is closed|Stream isn't writeable|enableOfflineQueue|Command timed out|connect ETIMEDOUT/i.test(
      error.message,
    )
  )
    return true;
  // The server answers but cannot take writes for now: full (noeviction), loading its data after a
  // restart, a replica after a failover, a cluster re-sharding, or a primary with fewer good
  // replicas than its min-replicas-to-write. Callers retry; edges answer 503.
  if (REFUSED.test(error.message)) return true;
  // A transaction Redis refused: EXECABORT, with the refusals of its commands alongside.
  const previous = (error as { previousErrors?: unknown[] }).previousErrors;
  return (
    error.message.startsWith('EXECABORT') &&
    Array.isArray(previous) &&
    previous.some((e) => e instanceof Error && REFUSED.test(e.message))
  );
}

/**
 * A Redis outage (no primary reachable: down, failing over, refusing writes) as the one error type,
 * with the wait every edge answers in Retry-After.
 */
function storeUnavailable(cause: unknown): BridgeError {
  return new BridgeError('store_unavailable', undefined, { cause, retryAfterMs: STORE_RETRY_AFTER_MS });
}

/** Runs a store operation and turns a Redis outage into `store_unavailable`. */
export async function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isRedisUnavailable(error)) throw storeUnavailable(error);
    throw error;
  }
}

/**
 * Anything thrown, as the one error type (domain/errors.ts): a BridgeError as it is, a Redis outage
 * as `store_unavailable`, anything else as `internal` with its message (for logs and records: the
 * HTTP edge never shows an internal error's message). `retryable`: whether an unknown error is
 * worth another try (a reconcile job's).
 */
export function asBridgeError(error: unknown, options: { retryable?: boolean } = {}): BridgeError {
  if (error instanceof BridgeError) return error;
  if (isRedisUnavailable(error)) return storeUnavailable(error);
  const message = error instanceof Error ? error.message : 'unexpected error';
  return new BridgeError('internal', message, {
    cause: error,
    ...(options.retryable === undefined ? {} : { retryable: options.retryable }),
  });
}

/** What ioredis's pipeline and multi answer: one [error, value] per command. */
type PipelineResults = [Error | null, unknown][] | null;

/**
 * Runs a pipeline (or a transaction) and returns each command's value. A command's own failure —
 * the connection lost half-way, a refusal — fails the whole call, mapped like any other: a reply
 * with an error is never read as an absent value.
 */
export async function execPipeline(pipeline: { exec(): Promise<PipelineResults> }): Promise<unknown[]> {
  return storeCall(async () => {
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
    return results.map(([, value]) => value);
  });
}
