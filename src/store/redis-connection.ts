import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/schema.js';
import { requireReplicas } from './replica-ack.js';

export type RedisClient = Redis | Cluster;
export type RedisSettings = Config['redis'];

/**
 * `producer`: used by HTTP handlers; fails fast when Redis is down (no offline queue, one retry) so
 * the route answers 503 instead of hanging, and carries REDIS_MIN_REPLICAS: the writes it
 * acknowledges to inputs wait for the replicas (replica-ack.ts). `worker`: BullMQ workers and
 * blocking reads; waits for Redis to come back (maxRetriesPerRequest: null, as BullMQ requires).
 */
export type RedisRole = 'producer' | 'worker';

interface UrlParts {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  tls: boolean;
}

export function parseRedisUrl(url: string): UrlParts {
  const parsed = new URL(url);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: Number.isInteger(db) ? db : 0,
    tls: parsed.protocol === 'rediss:',
  };
}

function roleOptions(role: RedisRole): RedisOptions {
  const reconnect = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2000);
  // A primary demoted by a failover answers READONLY: reconnect (to whatever the address or the
  // Sentinels now point at) instead of failing writes until a restart. The command itself fails
  // (retried by its caller), so a URL that keeps resolving to a replica cannot loop for ever.
  const reconnectOnError = (error: Error) => error.message.startsWith('READONLY');
  return role === 'producer'
    ? {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
        commandTimeout: 2000,
        retryStrategy: reconnect,
        reconnectOnError,
        lazyConnect: false,
      }
    : {
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        connectTimeout: 5000,
        retryStrategy: reconnect,
        reconnectOnError,
      };
}

function parseNode(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
}

/** The one place that opens Redis connections: URL, rediss:// TLS, Sentinel or Cluster. */
export function createRedis(settings: RedisSettings, role: RedisRole, name = 'scim-bridge'): RedisClient {
  const client = openRedis(settings, role, name);
  if (role === 'producer') {
    requireReplicas(client, {
      minReplicas: settings.minReplicas,
      timeoutMs: settings.replicaTimeoutMs,
      slotKey: settings.keyPrefix,
    });
  }
  return client;
}

function openRedis(settings: RedisSettings, role: RedisRole, name: string): RedisClient {
  const parts = parseRedisUrl(settings.url);
  const auth: RedisOptions = {
    username: parts.username,
    password: parts.password,
    tls: parts.tls ? {} : undefined,
    connectionName: name,
  };
  const options: RedisOptions = { ...auth, db: parts.db, ...roleOptions(role) };
  if (settings.cluster.nodes.length > 0) {
    return new Cluster(settings.cluster.nodes.map(parseNode), {
      redisOptions: { ...auth, ...roleOptions(role) },
      enableOfflineQueue: role === 'worker',
      clusterRetryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    });
  }
  if (settings.sentinel.name !== '') {
    return new Redis({
      ...options,
      sentinels: settings.sentinel.nodes.map(parseNode),
      name: settings.sentinel.name,
      sentinelPassword: parts.password,
      enableTLSForSentinelMode: parts.tls,
    });
  }
  return new Redis({ ...options, host: parts.host, port: parts.port });
}

/**
 * Resolves when Redis answers PING within the time given (waiting for a connection that is still
 * being made, since a producer connection refuses commands until it is ready); rejects otherwise.
 */
export async function pingRedis(client: RedisClient, timeoutMs: number): Promise<void> {
  const started = Date.now();
  await untilReady(client, timeoutMs);
  await withTimeout(client.ping(), timeoutMs - (Date.now() - started));
}

/** Resolves once the connection is ready; rejects after the timeout. */
export function untilReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      client.removeListener('ready', done);
      resolve();
    };
    const timer = setTimeout(() => {
      client.removeListener('ready', done);
      reject(new Error(`not connected (${client.status})`));
    }, timeoutMs);
    client.on('ready', done);
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within the time limit`)), Math.max(ms, 1));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a connection, waiting for pending replies but not forever. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
  client.disconnect();
}
