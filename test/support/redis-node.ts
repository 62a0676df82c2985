import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/ops/embedded-redis.js';

/**
 * One `redis-server` process of a test topology (a primary, a replica, a Sentinel, a Cluster node):
 * loopback only, a free port, its own folder under the topology's temporary directory, its own
 * config file (Sentinel rewrites it; a Cluster node keeps its nodes.conf beside it). Real: the
 * redis-server binary the project's machines have (tools/test-prerequisites.ts).
 */
export interface RedisNode {
  readonly port: number;
  /** A Cluster node's bus port (CLUSTER MEET needs it); undefined for the others. */
  readonly busPort: number | undefined;
  /** 127.0.0.1:port */
  readonly address: string;
  /** A client of its own for the test (not the bridge's): fails fast, never retries for long. */
  client(): Redis;
  /** SIGKILL, as a crash or a lost host: no shutdown, nothing saved. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same config file and these lines added (after kill). */
  restart(config?: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisNodeOptions {
  /** The topology's temporary directory; the node gets a folder named after its port in it. */
  root: string;
  /** Config lines beyond the loopback, port and no-persistence ones. */
  config?: readonly string[];
  /** `redis-server --sentinel`. */
  sentinel?: boolean;
  /**
   * A Cluster node: its bus gets a free port of its own (`cluster-port`). The default, port + 10000,
   * falls in the ephemeral range, where another process's connection may already hold it.
   */
  clusterBus?: boolean;
}

/** Tries with other ports when one was taken between the check and redis-server's bind. */
const BIND_ATTEMPTS = 3;

export async function startRedisNode(options: RedisNodeOptions): Promise<RedisNode> {
  for (let attempt = 1; ; attempt++) {
    const ports = { port: await freePort(), bus: options.clusterBus ? await freePort() : undefined };
    if (ports.bus === ports.port) continue;
    const { file, args } = writeNodeConfig(options, ports);
    try {
      const child = await launch(args, ports.port);
      return runningNode(ports, file, args, child);
    } catch (error) {
      if (attempt >= BIND_ATTEMPTS || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

function writeNodeConfig(
  options: RedisNodeOptions,
  ports: { port: number; bus: number | undefined },
): { file: string; args: string[] } {
  const dir = join(options.root, String(ports.port));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, options.sentinel ? 'sentinel.conf' : 'redis.conf');
  const base = [`port ${ports.port}`, 'bind 127.0.0.1', `dir ${dir}`, 'protected-mode yes'];
  const storage = options.sentinel ? [] : ['save ""', 'appendonly no'];
  const bus = ports.bus === undefined ? [] : [`cluster-port ${ports.bus}`];
  writeFileSync(file, [...base, ...storage, ...bus, ...(options.config ?? [])].join('\n') + '\n');
  return { file, args: options.sentinel ? [file, '--sentinel'] : [file] };
}

function runningNode(
  { port, bus }: { port: number; bus: number | undefined },
  file: string,
  args: readonly string[],
  first: ChildProcess,
): RedisNode {
  let child = first;
  const clients: Redis[] = [];
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  return {
    port,
    busPort: bus,
    address: `127.0.0.1:${port}`,
    client() {
      const client = new Redis({
        port,
        host: '127.0.0.1',
        maxRetriesPerRequest: 1,
        retryStrategy: () => null,
      });
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    async kill() {
      await exited(child, 'SIGKILL');
    },
    async restart(config = []) {
      await exited(child, 'SIGKILL');
      if (config.length > 0) appendFileSync(file, config.join('\n') + '\n');
      child = await launch(args, port);
    },
    async stop() {
      process.removeListener('exit', onExit);
      for (const client of clients) client.disconnect();
      await exited(child, 'SIGKILL');
    },
  };
}

function launch(args: readonly string[], port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) =>
      fail(new Error(`redis-server ${args.join(' ')} exited with ${code}: ${output}`)),
    );
    void answers(port, 10_000).then(
      () => {
        child.removeAllListeners('exit');
        resolve(child);
      },
      (error: Error) => fail(new Error(`${error.message}: ${output}`)),
    );
  });
}

/** Resolves once the server answers PING (a Sentinel too). */
async function answers(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined);
    const ok = await client
      .connect()
      .then(() => client.ping())
      .then(
        (reply) => reply === 'PONG',
        () => false,
      );
    client.disconnect();
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
}

function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
