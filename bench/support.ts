import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { freePort } from '../src/ops/embedded-redis.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface BridgeChild {
  child: ChildProcess;
  url: string;
  /** Peak resident memory (VmHWM) of the bridge process so far, in MB. */
  peakRssMb(): number;
  /** Starts measuring the peak afresh (Linux: clear_refs 5 resets VmHWM to the current RSS). */
  resetPeak(): void;
  /** Resident memory of the bridge process now (VmRSS), in MB. */
  rssMb(): number;
  stop(): Promise<void>;
}

/** Starts `scim-bridge <role>` (compiled) in its own process and waits until /healthz answers. */
export async function startBridgeProcess(env: Record<string, string>, role = 'all'): Promise<BridgeChild> {
  const port = await freePort();
  // As the image and npm start run it (16 MB semi-spaces: see the Dockerfile's ENTRYPOINT); then
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the bridge.
  const nodeArgs = [
    '--max-semi-space-size=16',
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  // BENCH_BRIDGE_CPU, e.g. "0", pins the bridge's processes to that core (taskset): what one core does.
  const cpu = process.env.BENCH_BRIDGE_CPU;
  const command = [process.execPath, ...nodeArgs, 'bin/scim-bridge.js', role];
  const [file, ...args] = cpu ? ['taskset', '-c', cpu, ...command] : command;
  const child = spawn(file ?? process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SYNC_SCHEDULE: '',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  // A benchmark that fails half-way must not leave its bridge running against a stopped Redis.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => {
    exited = true;
    process.off('exit', orphan);
  });
  for (;;) {
    if (exited) throw new Error(`the bridge exited with ${child.exitCode}`);
    const up = await request(`${url}/healthz`).then(
      (r) => r.body.text().then(() => r.statusCode === 200),
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    url,
    peakRssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return Math.round(kb / 1024);
    },
    resetPeak: () => writeFileSync(`/proc/${child.pid}/clear_refs`, '5'),
    rssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function adminCall<T>(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await request(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 400) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

export interface SyncResult {
  state: string;
  /** The source was unchanged since its last applied read: planned from the desired state. */
  sourceUnchanged?: true;
  progress?: { phase: string };
  plan: Record<string, unknown>;
  summary: {
    requests: Record<string, number>;
    durationMs: number;
    phasesMs?: Record<string, number>;
    rssMb?: Record<string, number>;
    created: number;
    updated: number;
    failed: number;
    /** Users found as the last sync that compared them found them: counted, not planned. */
    unchangedClean?: number;
  };
}

/** Starts a full sync through the admin API and waits for it to end. */
export async function runSync(
  url: string,
  token: string,
  body: unknown = {},
  onPoll?: (record: SyncResult) => void,
): Promise<SyncResult> {
  const { jobId } = await adminCall<{ jobId: string }>(url, token, 'POST', '/admin/sync', body);
  for (;;) {
    const record = await adminCall<SyncResult>(url, token, 'GET', `/admin/sync/${jobId}`);
    onPoll?.(record);
    if (['completed', 'failed', 'awaiting-approval'].includes(record.state)) return record;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function table(rows: [string, string | number][]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

export interface TargetChild {
  url: string;
  stats(): Promise<{ byRoute: Record<string, number>; byMethod: Record<string, number>; total: number }>;
  stop(): Promise<void>;
}

/** Runs the reference target (compiled) in a process of its own, as a real platform would be. */
export async function startTargetProcess(token: string, args: string[]): Promise<TargetChild> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['bin/scim-bridge.js', 'reference-target', '--port', String(port), '--token', token, ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the reference target exited with ${child.exitCode}`);
    const up = await request(`${url}/__control/health`).then(
      (r) => r.body.text().then(() => r.statusCode === 200),
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stats: () => adminCall(`${url}/__control`, token, 'GET', '/stats?requests=0'),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Plain clients posting users as fast as the target allows: the ceiling this machine gives. */
export async function targetCeiling(
  scimUrl: string,
  token: string,
  concurrency: number,
  count: number,
): Promise<number> {
  const { Agent } = await import('undici');
  const agent = new Agent({ connections: concurrency });
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const response = await request(`${scimUrl}/Users`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
          body: JSON.stringify({
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            userName: `ceiling${i}@bench.example`,
            active: true,
          }),
        });
        await response.body.text();
      }
    }),
  );
  await agent.close();
  return count / ((Date.now() - started) / 1000);
}

/** CPU seconds (user + system) a process has used so far (Linux /proc; clock ticks of 10 ms). */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
}

/**
 * How busy each process was over a stretch of time, in percent of one core: what bounds a
 * benchmark on a machine whose cores every process shares.
 */
export class CpuMeter {
  private readonly before: number[];
  private readonly started = Date.now();

  constructor(private readonly processes: readonly { name: string; pid: number }[]) {
    this.before = processes.map((p) => cpuSecondsOf(p.pid));
  }

  report(): string {
    const seconds = (Date.now() - this.started) / 1000;
    const used = this.processes.map((p, i) => cpuSecondsOf(p.pid) - (this.before[i] ?? 0));
    return busyShares(this.processes, used, seconds);
  }
}

/** Each process's CPU seconds over `seconds` of wall time, in percent of one core. */
function busyShares(
  processes: readonly { name: string }[],
  used: readonly number[],
  seconds: number,
): string {
  return processes.map((p, i) => `${p.name} ${Math.round(((used[i] ?? 0) / seconds) * 100)}%`).join(', ');
}

/**
 * How busy each process was in each stage of a run, in percent of one core, from samples taken
 * when the caller sees the stage (e.g. at each poll of a sync's progress): which side bounds it.
 */
export class StageCpuMeter {
  private readonly stages = new Map<string, { seconds: number; cpu: number[] }>();
  private current: { stage: string; at: number; cpu: number[] } | undefined;

  constructor(private readonly processes: readonly { name: string; pid: number }[]) {}

  sample(stage: string): void {
    if (this.current?.stage === stage) return;
    this.close();
    this.current = { stage, at: Date.now(), cpu: this.processes.map((p) => cpuSecondsOf(p.pid)) };
  }

  /** Per stage: its wall time and each process's share of one core. */
  report(): string {
    this.close();
    return [...this.stages]
      .map(
        ([stage, { seconds, cpu }]) =>
          `${stage} ${seconds.toFixed(1)} s: ${busyShares(this.processes, cpu, seconds)}`,
      )
      .join('; ');
  }

  private close(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    const seconds = (Date.now() - current.at) / 1000;
    const used = this.processes.map((p, i) => cpuSecondsOf(p.pid) - (current.cpu[i] ?? 0));
    const total = this.stages.get(current.stage) ?? { seconds: 0, cpu: this.processes.map(() => 0) };
    this.stages.set(current.stage, {
      seconds: total.seconds + seconds,
      cpu: total.cpu.map((value, i) => value + (used[i] ?? 0)),
    });
  }
}

/** The pid of the Redis server at `url` (INFO server). */
export async function redisPid(url: string): Promise<number> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  try {
    return Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1] ?? 0);
  } finally {
    client.disconnect();
  }
}
