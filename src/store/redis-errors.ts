import { BridgeError } from '../domain/errors.js';

const REFUSED = /^(OOM|LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN) /;

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
  // restart, a replica after a failover, or a cluster re-sharding. Callers retry; edges answer 503.
  if (REFUSED.test(error.message)) return true;
  // A transaction Redis refused: EXECABORT, with the refusals of its commands alongside.
  const previous = (error as { previousErrors?: unknown[] }).previousErrors;
  return (
    error.message.startsWith('EXECABORT') &&
    Array.isArray(previous) &&
    previous.some((e) => e instanceof Error && REFUSED.test(e.message))
  );
}

/** Runs a store operation and turns a Redis outage into `store_unavailable`. */
export async function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isRedisUnavailable(error)) throw new BridgeError('store_unavailable', undefined, { cause: error });
    throw error;
  }
}
