import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisNode, type RedisNode } from './redis-node.js';
import { until } from './until.js';

/**
 * A primary, a replica and three Sentinels on loopback, started from the redis-server binary, in
 * one temporary directory removed by stop(). Timings are short so that a failover takes seconds:
 * a primary is down after 1 s without an answer, and a failed failover is tried again after 4 s
 * (twice the failover timeout).
 */
export interface SentinelTopology {
  readonly name: string;
  readonly primary: RedisNode;
  readonly replica: RedisNode;
  readonly sentinels: readonly RedisNode[];
  /** A CONFIG_FILE connecting the bridge through the Sentinels (redis.sentinel.name and nodes). */
  readonly configFile: string;
  /** host:port of the primary a majority of the Sentinels name now. */
  currentPrimary(): Promise<string | undefined>;
  /** Resolves once a majority of the Sentinels name `address` as the primary. */
  primaryIs(address: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface SentinelOptions {
  /** Config lines of the replica (e.g. `enable-debug-command yes` for DEBUG SLEEP). */
  replicaConfig?: readonly string[];
}

const NAME = 'bridge-primary';

export async function startSentinelTopology(options: SentinelOptions = {}): Promise<SentinelTopology> {
  const root = mkdtempSync(join(tmpdir(), 'scim-bridge-sentinel-'));
  const nodes: RedisNode[] = [];
  const started = async (node: Promise<RedisNode>) => {
    nodes.push(await node);
    return nodes[nodes.length - 1] as RedisNode;
  };
  try {
    const primary = await started(startRedisNode({ root }));
    const replica = await started(
      startRedisNode({
        root,
        config: [`replicaof 127.0.0.1 ${primary.port}`, ...(options.replicaConfig ?? [])],
      }),
    );
    const link = replica.client();
    await until('the replica to be in sync', async () =>
      /master_link_status:up/.test(await link.info('replication')),
    );
    const sentinels: RedisNode[] = [];
    for (let n = 0; n < 3; n++) {
      sentinels.push(
        await started(
          startRedisNode({
            root,
            sentinel: true,
            config: [
              `sentinel monitor ${NAME} 127.0.0.1 ${primary.port} 2`,
              `sentinel down-after-milliseconds ${NAME} 1000`,
              `sentinel failover-timeout ${NAME} 2000`,
              `sentinel parallel-syncs ${NAME} 1`,
            ],
          }),
        ),
      );
    }
    await untilSentinelsKnowEachOther(sentinels);
    const configFile = join(root, 'bridge.yaml');
    const list = sentinels.map((s) => `'${s.address}'`).join(', ');
    writeFileSync(configFile, `redis:\n  sentinel:\n    name: ${NAME}\n    nodes: [${list}]\n`);
    const currentPrimary = () => majorityPrimary(sentinels);
    return {
      name: NAME,
      primary,
      replica,
      sentinels,
      configFile,
      currentPrimary,
      primaryIs: async (address, timeoutMs = 30_000) => {
        await until(`the Sentinels to name ${address}`, async () => (await currentPrimary()) === address, {
          timeoutMs,
        });
      },
      stop: async () => {
        await Promise.all(nodes.map((node) => node.stop()));
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** Each Sentinel knows the replica and the two others (a failover needs a quorum and a leader). */
async function untilSentinelsKnowEachOther(sentinels: readonly RedisNode[]): Promise<void> {
  const clients = sentinels.map((sentinel) => sentinel.client());
  try {
    await until('the Sentinels to know the replica and each other', async () => {
      for (const client of clients) {
        const replicas = (await client.call('SENTINEL', 'REPLICAS', NAME)) as unknown[];
        const others = (await client.call('SENTINEL', 'SENTINELS', NAME)) as unknown[];
        if (replicas.length < 1 || others.length < 2) return false;
      }
      return true;
    });
  } finally {
    for (const client of clients) client.disconnect();
  }
}

async function majorityPrimary(sentinels: readonly RedisNode[]): Promise<string | undefined> {
  const votes = new Map<string, number>();
  await Promise.all(
    sentinels.map(async (sentinel) => {
      const client = sentinel.client();
      try {
        const reply = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', NAME)) as string[] | null;
        if (reply) votes.set(`${reply[0]}:${reply[1]}`, (votes.get(`${reply[0]}:${reply[1]}`) ?? 0) + 1);
      } catch {
        // a Sentinel that does not answer has no vote
      } finally {
        client.disconnect();
      }
    }),
  );
  return [...votes].find(([, count]) => count >= 2)?.[0];
}
