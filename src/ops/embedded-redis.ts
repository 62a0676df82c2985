import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private redis-server on a free port with no persistence, for the demo and the tests. */
export interface EmbeddedRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGKILL after a grace period) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server without a clean shutdown, as an outage would. */
  kill(): void;
  /** Starts it again on the same port after kill() or stop(). */
  restart(): Promise<void>;
}

const INSTALL_HINT =
  'redis-server was not found on PATH. Install it (Debian/Ubuntu: apt-get install redis-server) or set REDIS_URL.';

/**
 * A free port below the kernel's ephemeral range. A server started on it can be killed and started
 * again on the same port (outage tests) without the port being handed meanwhile to some other
 * `listen(0)` or to the source side of an outgoing connection, which only use the ephemeral range.
 */
export async function freePort(): Promise<number> {
  const [low, high] = [15_000, ephemeralStart()];
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error('no free port found below the ephemeral range');
}

function ephemeralStart(): number {
  try {
    const start = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(start) && start > 16_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startEmbeddedRedis(
  options: { binary?: string; port?: number } = {},
): Promise<EmbeddedRedis> {
  const binary = options.binary ?? 'redis-server';
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-redis-'));
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    child = await spawnRedis(binary, port, dir);
  };
  await launch();

  const onExit = () => child?.kill('SIGKILL');
  process.once('exit', onExit);

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      process.removeListener('exit', onExit);
      await terminate(child);
      rmSync(dir, { recursive: true, force: true });
    },
    kill() {
      child?.kill('SIGKILL');
    },
    async restart() {
      await terminate(child);
      await launch();
    },
  };
}

function spawnRedis(binary: string, port: number, dir: string): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  args.push('--daemonize', 'no', '--loglevel', 'warning', '--protected-mode', 'yes');
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not start on port ${port}: ${output}`)),
      10_000,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', (error: NodeJS.ErrnoException) =>
      fail(error.code === 'ENOENT' ? new Error(INSTALL_HINT) : error),
    );
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${output}`)));
    // With loglevel warning redis prints little, so readiness is probed with a connection attempt.
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void waitForPort(port, 10_000).then(
      () => {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(child);
      },
      (error: Error) => fail(error),
    );
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end('PING\r\n');
        socket.once('data', (data) => resolve(data.toString().startsWith('+PONG')));
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not answer on port ${port} within ${timeoutMs} ms`);
}

async function terminate(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
