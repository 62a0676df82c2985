import type { Cluster, Redis } from 'ioredis';
import { BridgeError } from '../domain/errors.js';
import { storeCall } from './redis-errors.js';

/**
 * Acknowledged means replicated (REDIS_MIN_REPLICAS). Redis replicates asynchronously: a primary
 * that dies before its replica has read a write takes it along, and a failover promotes a replica
 * without it. A write the bridge acknowledges to an input (a SCIM write, a webhook batch, an Okta
 * delivery, an admin action) is therefore followed by `WAIT numreplicas timeout` on the connection
 * that wrote: WAIT returns once that many replicas hold every write this connection made before it,
 * or at the timeout with how many do. Fewer than asked → `store_unavailable` with Retry-After, so
 * the input is answered 503 and sends it again, instead of a success that a failover could undo.
 *
 * The setting belongs to the connection: the HTTP side's producer connection carries it
 * (redis-connection.ts registers it), the workers' connections never do — what the workers write
 * (jobs, marks, outcomes) is rebuilt by the level-triggered design — so `replicated(client)` is a
 * no-op there and callers need not know which side they run on.
 */

type Client = Redis | Cluster;

export interface ReplicaAckSettings {
  /** Replicas that must hold the write; 0: acknowledge once the primary holds it (no WAIT). */
  minReplicas: number;
  /** How long WAIT may block, in milliseconds. */
  timeoutMs: number;
  /** A key in the bridge's hash slot (the key prefix): on a Cluster, WAIT goes to that slot's master. */
  slotKey: string;
}

/** How long an input is asked to wait when the replicas did not confirm in time. */
export const REPLICA_RETRY_AFTER_MS = 2000;

const concerns = new WeakMap<Client, ReplicaAckSettings>();
const groups = new WeakMap<Redis, WaitGroup>();

/** Makes every `replicated(client)` wait for `settings.minReplicas` replicas (0: never). */
export function requireReplicas(client: Client, settings: ReplicaAckSettings): void {
  if (settings.minReplicas > 0) concerns.set(client, settings);
  else concerns.delete(client);
}

/** The replica acknowledgement a connection carries, if any. */
export function replicaConcern(client: Client): ReplicaAckSettings | undefined {
  return concerns.get(client);
}

/**
 * Call after a write acknowledged to an input, with the connection that wrote: resolves once the
 * required replicas hold it; throws `store_unavailable` (503 + Retry-After at the edges) otherwise.
 */
export async function replicated(client: Client): Promise<void> {
  const settings = concerns.get(client);
  if (settings === undefined) return;
  const node = primaryConnection(client, settings.slotKey);
  let group = groups.get(node);
  if (group === undefined) {
    group = new WaitGroup(node, settings);
    groups.set(node, group);
  }
  const confirmed = await group.join();
  if (confirmed < settings.minReplicas) {
    throw new BridgeError(
      'store_unavailable',
      `${confirmed} of ${settings.minReplicas} Redis replicas confirmed the write within ${settings.timeoutMs} ms`,
      { retryAfterMs: REPLICA_RETRY_AFTER_MS },
    );
  }
}

/**
 * The connection WAIT must use: the client itself, or on a Cluster the connection to the master
 * of the bridge's slot (ioredis keeps one per node, which is the one the write went through).
 */
function primaryConnection(client: Client, slotKey: string): Redis {
  if (!client.isCluster) return client as Redis;
  const node = slotPrimary(client as Cluster, slotKey);
  if (node === undefined) {
    throw new BridgeError(
      'store_unavailable',
      "The Redis Cluster node of the bridge's slot is not known yet",
      {
        retryAfterMs: REPLICA_RETRY_AFTER_MS,
      },
    );
  }
  return node;
}

/** The connection to the master serving the hash slot of `key`, as the client's slot map says. */
export function slotPrimary(cluster: Cluster, key: string): Redis | undefined {
  const owner = cluster.slots[clusterSlot(key)]?.[0];
  return cluster
    .nodes('master')
    .find((candidate) => `${candidate.options.host}:${candidate.options.port}` === owner);
}

interface Waiter {
  /** The connection's generation when the write's reply arrived. */
  generation: number;
  resolve(confirmed: number): void;
  reject(error: unknown): void;
}

/**
 * One WAIT at a time per connection, shared by every write that finished before it was sent (WAIT
 * covers all of the connection's earlier writes); writes that finish meanwhile share the next one.
 * A write made on an earlier connection (a reconnect in between) is never vouched for: WAIT on a
 * new connection knows nothing of it.
 */
class WaitGroup {
  private waiting: Waiter[] = [];
  private running = false;
  private generation = 0;

  constructor(
    private readonly node: Redis,
    private readonly settings: ReplicaAckSettings,
  ) {
    node.on('close', () => this.generation++);
  }

  join(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.waiting.push({ generation: this.generation, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0);
        const generation = this.generation;
        const { minReplicas, timeoutMs } = this.settings;
        try {
          const confirmed = await storeCall(() => this.node.wait(minReplicas, timeoutMs));
          for (const waiter of batch) {
            if (waiter.generation === generation) waiter.resolve(confirmed);
            else waiter.reject(new BridgeError('store_unavailable', 'The Redis connection was replaced'));
          }
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }
}

/** Redis Cluster's hash slot of a key (CRC16/XMODEM of its first non-empty {tag}, mod 16384). */
export function clusterSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
