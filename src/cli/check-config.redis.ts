import type { RedisSettings } from '../store/redis-connection.js';
import { closeRedis, createRedis } from '../store/redis-connection.js';
import { describeRedis, type RedisTopology } from '../store/redis-topology.js';

/** How long check-config tries to reach Redis before it says it could not. */
const REACH_MS = 2000;

/**
 * What `check-config` says of Redis, as comment lines above the settings: the topology as it is
 * now (the primary the Sentinels name, the Cluster's nodes) and how durable an acknowledged write
 * is. Redis out of reach is said, not an error: the configuration may still be valid.
 */
export async function redisLines(settings: RedisSettings): Promise<string[]> {
  const client = createRedis(settings, 'producer', 'scim-bridge-check-config');
  try {
    const problem = await reached(client);
    const topology = await describeRedis(client, settings);
    return [topologyLine(topology, settings, problem), durabilityLine(topology, problem)];
  } finally {
    await closeRedis(client);
  }
}

/** Resolves with undefined once connected, or with the first connection error (or a timeout). */
function reached(client: ReturnType<typeof createRedis>): Promise<string | undefined> {
  if (client.status === 'ready') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${REACH_MS / 1000} s`), REACH_MS);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    client.once('error', (error: Error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
  });
}

function topologyLine(topology: RedisTopology, settings: RedisSettings, problem: string | undefined): string {
  const where =
    topology.topology === 'sentinel'
      ? `Sentinel "${settings.sentinel.name}" through ${settings.sentinel.nodes.length} Sentinels`
      : topology.topology === 'cluster'
        ? `Cluster from ${settings.cluster.nodes.length} start-up nodes`
        : `single server ${topology.primary ?? '?'}`;
  if (problem !== undefined) return `redis: ${where}; not reachable now (${problem})`;
  const primary = topology.primary ?? 'unknown';
  const replicas =
    topology.replicas === null ? 'replicas unknown' : `${plural(topology.replicas, 'replica')} connected`;
  if (topology.cluster) {
    const { nodes, masters } = topology.cluster;
    return `redis: Cluster of ${nodes} nodes (${masters} masters); the bridge's slot on ${primary} with ${replicas}`;
  }
  if (topology.topology === 'sentinel') return `redis: ${where}; primary now ${primary} with ${replicas}`;
  return `redis: ${where} with ${replicas}`;
}

function durabilityLine(topology: RedisTopology, problem: string | undefined): string {
  const { minReplicas, replicaTimeoutMs } = topology;
  if (minReplicas === 0) {
    return (
      'redis: inputs are answered once the primary holds their write (REDIS_MIN_REPLICAS=0): ' +
      'a failover can lose the last ones'
    );
  }
  const short =
    problem === undefined && topology.replicas !== null && topology.replicas < minReplicas
      ? ` — fewer are connected now, so every input write would be answered 503`
      : '';
  return (
    `redis: inputs are answered once ${plural(minReplicas, 'replica')} ${minReplicas === 1 ? 'holds' : 'hold'} their write ` +
    `(REDIS_MIN_REPLICAS=${minReplicas}, waiting up to ${replicaTimeoutMs} ms, else 503 with Retry-After)${short}`
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
