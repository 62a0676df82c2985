import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { clusterSlot } from '../../src/store/replica-ack.js';
import { startRedisNode, type RedisNode } from './redis-node.js';
import { until } from './until.js';

/**
 * A Redis Cluster of three masters on loopback (slots split evenly with CLUSTER ADDSLOTSRANGE, the
 * nodes introduced with CLUSTER MEET, as `redis-cli --cluster create` does), and optionally one
 * replica of the master that serves a given key's slot. Started from the redis-server binary in
 * one temporary directory that stop() removes.
 */
export interface ClusterTopology {
  readonly masters: readonly RedisNode[];
  /** The replica of the master serving `replicaFor`'s slot, when asked for. */
  readonly replica: RedisNode | undefined;
  /** A CONFIG_FILE connecting the bridge to the Cluster (redis.cluster.nodes). */
  readonly configFile: string;
  /** The master serving a key's slot. */
  masterFor(key: string): RedisNode;
  stop(): Promise<void>;
}

const CLUSTER_CONFIG = ['cluster-enabled yes', 'cluster-config-file nodes.conf', 'cluster-node-timeout 2000'];

export async function startClusterTopology(options: { replicaFor?: string } = {}): Promise<ClusterTopology> {
  const root = mkdtempSync(join(tmpdir(), 'scim-bridge-cluster-'));
  const nodes: RedisNode[] = [];
  const clients: Redis[] = [];
  const stop = async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let n = 0; n < 3; n++)
      nodes.push(await startRedisNode({ root, config: CLUSTER_CONFIG, clusterBus: true }));
    const masters = [...nodes];
    const masterClients = masters.map((node) => node.client());
    clients.push(...masterClients);
    const ranges = [
      [0, 5460],
      [5461, 10922],
      [10923, 16383],
    ];
    await Promise.all(
      masterClients.map((client, n) => client.call('CLUSTER', 'ADDSLOTSRANGE', ...(ranges[n] as number[]))),
    );
    await introduce(masterClients, masters);
    const masterFor = (key: string) => {
      const slot = clusterSlot(key);
      return masters[
        ranges.findIndex(([low, high]) => slot >= (low ?? 0) && slot <= (high ?? 0))
      ] as RedisNode;
    };
    let replica: RedisNode | undefined;
    if (options.replicaFor !== undefined) {
      replica = await startRedisNode({ root, config: CLUSTER_CONFIG, clusterBus: true });
      nodes.push(replica);
      await addReplica(replica, masterFor(options.replicaFor), masterClients, clients);
    }
    const configFile = join(root, 'bridge.yaml');
    const list = masters.map((node) => `'${node.address}'`).join(', ');
    writeFileSync(configFile, `redis:\n  cluster:\n    nodes: [${list}]\n`);
    return { masters, replica, configFile, masterFor, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** CLUSTER MEET from the first node, then waits until every node sees a whole, healthy Cluster. */
async function introduce(clients: readonly Redis[], nodes: readonly RedisNode[]): Promise<void> {
  const [first] = clients;
  for (const node of nodes.slice(1)) await first?.call('CLUSTER', 'MEET', ...meetArguments(node));
  await until('the Cluster to be whole', async () => {
    for (const client of clients) {
      const info = (await client.call('CLUSTER', 'INFO')) as string;
      if (
        !/cluster_state:ok/.test(info) ||
        !new RegExp(`cluster_known_nodes:${nodes.length}\\b`).test(info)
      ) {
        return false;
      }
    }
    return true;
  });
}

async function addReplica(
  replica: RedisNode,
  master: RedisNode,
  masters: readonly Redis[],
  clients: Redis[],
) {
  const own = replica.client();
  clients.push(own);
  const masterClient = master.client();
  clients.push(masterClient);
  await own.call('CLUSTER', 'MEET', ...meetArguments(master));
  const masterId = (await masterClient.call('CLUSTER', 'MYID')) as string;
  await until('the new node to know the master', async () =>
    ((await own.call('CLUSTER', 'NODES')) as string).includes(masterId),
  );
  await own.call('CLUSTER', 'REPLICATE', masterId);
  await until('the replica to be in sync', async () =>
    /master_link_status:up/.test(await own.info('replication')),
  );
  await until('every master to see the replica', async () => {
    for (const client of masters) {
      if (!((await client.call('CLUSTER', 'NODES')) as string).includes(`slave ${masterId}`)) return false;
    }
    return true;
  });
}

/** CLUSTER MEET's address, port and bus port (the bus is not on port + 10000 here). */
function meetArguments(node: RedisNode): string[] {
  return ['127.0.0.1', String(node.port), String(node.busPort ?? node.port + 10_000)];
}
