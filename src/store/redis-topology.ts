import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.js';
import type { RedisClient, RedisSettings } from './redis-connection.js';
import { slotPrimary } from './replica-ack.js';

/**
 * What the bridge's Redis is and how durable an acknowledged write is: for GET /admin/status and
 * `scim-bridge check-config`.
 */
export interface RedisTopology {
  topology: 'single' | 'sentinel' | 'cluster';
  /**
   * The primary the bridge writes to now, as host:port: the server (single), the master the
   * Sentinels named (sentinel), the master of the bridge's hash slot (cluster); null while unknown.
   */
  primary: string | null;
  /** Sentinel: the master's name and the Sentinels configured. */
  sentinel?: { name: string; nodes: number };
  /** Cluster: its nodes and the masters serving slots, as the master of the bridge's slot says. */
  cluster?: { nodes: number; masters: number };
  /** Replicas connected to that primary now (INFO replication); null while unknown. */
  replicas: number | null;
  /** REDIS_MIN_REPLICAS: replicas that must hold a write before an input is answered. */
  minReplicas: number;
  /** REDIS_REPLICA_TIMEOUT_MS: how long the bridge waits for them. */
  replicaTimeoutMs: number;
}

export async function describeRedis(client: RedisClient, settings: RedisSettings): Promise<RedisTopology> {
  const durability = { minReplicas: settings.minReplicas, replicaTimeoutMs: settings.replicaTimeoutMs };
  if (client.isCluster) {
    const cluster = client as Cluster;
    const node = slotPrimary(cluster, settings.keyPrefix);
    return {
      topology: 'cluster',
      primary: node ? `${node.options.host}:${node.options.port}` : null,
      cluster: (node && (await clusterSize(node))) ?? {
        nodes: cluster.nodes('all').length,
        masters: cluster.nodes('master').length,
      },
      replicas: node ? await connectedReplicas(node) : null,
      ...durability,
    };
  }
  const redis = client as Redis;
  const sentinel = settings.sentinel.name !== '';
  return {
    topology: sentinel ? 'sentinel' : 'single',
    primary: connectedAddress(redis) ?? (sentinel ? null : `${redis.options.host}:${redis.options.port}`),
    ...(sentinel
      ? { sentinel: { name: settings.sentinel.name, nodes: settings.sentinel.nodes.length } }
      : {}),
    replicas: redis.status === 'ready' ? await connectedReplicas(redis) : null,
    ...durability,
  };
}

/** The address a connection is connected to (the primary the Sentinels named); undefined when not. */
export function connectedAddress(redis: Redis): string | undefined {
  const stream =
    redis.status === 'ready' ? (redis.stream as Partial<Redis['stream']> | undefined) : undefined;
  if (!stream?.remoteAddress || stream.remotePort === undefined) return undefined;
  const host = stream.remoteAddress.replace(/^::ffff:/, '');
  return `${host.includes(':') ? `[${host}]` : host}:${stream.remotePort}`;
}

/** CLUSTER INFO: the nodes the Cluster knows and the masters serving slots (cluster_size). */
async function clusterSize(node: Redis): Promise<{ nodes: number; masters: number } | undefined> {
  try {
    const info = (await node.call('CLUSTER', 'INFO')) as string;
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
    const [nodes, masters] = [field('cluster_known_nodes'), field('cluster_size')];
    return Number.isInteger(nodes) && Number.isInteger(masters) ? { nodes, masters } : undefined;
  } catch {
    return undefined;
  }
}

async function connectedReplicas(node: Redis): Promise<number | null> {
  try {
    const info = await node.info('replication');
    const match = /^connected_slaves:(\d+)/m.exec(info);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Logs, once per switch, that the Sentinels named another primary: ioredis follows a failover by
 * itself (a lost connection, or READONLY from a demoted primary, makes it ask the Sentinels again),
 * and each time it is ready again the address it reached is compared with the last one.
 */
export function logPrimarySwitches(client: RedisClient, settings: RedisSettings, logger: Logger): void {
  if (client.isCluster || settings.sentinel.name === '') return;
  const redis = client as Redis;
  let last = connectedAddress(redis);
  redis.on('ready', () => {
    const now = connectedAddress(redis);
    if (now === undefined || now === last) return;
    if (last !== undefined) {
      logger.warn({ sentinel: settings.sentinel.name, from: last, to: now }, 'Redis primary switched');
    }
    last = now;
  });
}
