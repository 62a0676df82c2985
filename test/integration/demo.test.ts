import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTHING_CONFIGURED } from '../../src/cli/check-config.command.js';

// Real: `scim-bridge demo` in a child process, as `npm run demo` runs it (tsx from the sources), in a
// working directory and a TMPDIR of its own, with nothing configured: its embedded redis-server, the
// reference target, the demo directory. The CLI commands it suggests run in further child processes
// with the variables it printed; what is left behind is read from the temporary folder and /proc.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const RUN = join(ROOT, 'src', 'cli', 'run.ts');

interface Child {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

const children: Child[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const { child } of children.splice(0)) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(name: string): string {
  const path = mkdtempSync(join(tmpdir(), `scim-bridge-demo-test-${name}-`));
  folders.push(path);
  return path;
}

function start(args: string[], options: { cwd: string; env: Record<string, string> }): Child {
  const child = spawn(process.execPath, ['--import', TSX, RUN, ...args], {
    cwd: options.cwd,
    // tsx reads the project's tsconfig (its `paths`) from the working directory unless told where.
    env: { PATH: process.env.PATH ?? '', TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const started = { child, stdout: () => stdout, stderr: () => stderr, exited };
  children.push(started);
  return started;
}

async function cli(args: string[], env: Record<string, string>) {
  const run = start(args, { cwd: ROOT, env });
  return { code: await run.exited, stdout: run.stdout(), stderr: run.stderr() };
}

/** Starts the demo in `cwd` and waits until it serves; PORT=0 unless given. */
async function startDemo(cwd: string, temp: string, env: Record<string, string> = {}): Promise<Child> {
  const demo = start(['demo'], { cwd, env: { TMPDIR: temp, PORT: '0', ...env } });
  await expect
    .poll(() => `${demo.stdout()}${demo.stderr()}`, { timeout: 40_000, interval: 100 })
    .toContain('Serving until Ctrl-C.');
  return demo;
}

/** The variables of the printed `export` lines. */
function exported(output: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [, assignments = ''] of output.matchAll(/^ {2}export (.+)$/gm)) {
    for (const pair of assignments.split(' ')) {
      const at = pair.indexOf('=');
      vars[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return vars;
}

/**
 * The embedded Redis's folders in TMPDIR, and the processes working in TMPDIR (redis-server works in
 * its folder, `--dir`, and renames its command line).
 */
function leftBehind(temp: string): { folders: string[]; processes: string[] } {
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  const processes = pids.filter((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/cwd`).startsWith(temp);
    } catch {
      return false;
    }
  });
  return { folders: readdirSync(temp).filter((name) => name.startsWith('scim-bridge-redis-')), processes };
}

/** The local address (hex, as /proc/net/tcp writes it) of the socket listening on `port`. */
function listeningAddress(port: number): string | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const lines = readFileSync('/proc/net/tcp', 'utf8').split('\n');
  const line = lines.find((l) => l.split(/\s+/)[2]?.endsWith(`:${hexPort}`) && l.split(/\s+/)[4] === '0A');
  return line?.split(/\s+/)[2]?.split(':')[0];
}

/** The CLI arguments of a printed `npx scim-bridge …` line. */
function args(line: string | undefined): string[] {
  return (line ?? '').split(' ').slice(2);
}

/**
 * Sends what a printed `curl` line sends, with the exported variables: its method, headers, data
 * (single-quoted) and URL (double-quoted), as the shell would pass them.
 */
async function curl(line: string, vars: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const expand = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => vars[name] ?? '');
  const headers = Object.fromEntries(
    [...line.matchAll(/-H (?:"([^"]*)"|'([^']*)')/g)].map((m) => {
      const header = expand(m[1] ?? m[2] ?? '');
      const colon = header.indexOf(':');
      return [header.slice(0, colon), header.slice(colon + 1).trim()];
    }),
  );
  const data = /-d '([^']*)'/.exec(line)?.[1];
  const url = expand(/"(\$BRIDGE_URL[^"]*)"$/.exec(line)?.[1] ?? '');
  const method = /-X (\w+)/.exec(line)?.[1] ?? 'GET';
  const response = await fetch(url, { method, headers, ...(data === undefined ? {} : { body: data }) });
  return { status: response.status, body: await response.json() };
}

async function scimGet(url: string, token: string): Promise<{ status: number; totalResults?: number }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { totalResults?: number };
  return { status: response.status, totalResults: body.totalResults };
}

describe('scim-bridge demo', () => {
  it('serves on 127.0.0.1, hands over the keys and the commands that work with them, stops clean, keeps its tokens', async () => {
    const cwd = folder('cwd');
    const temp = folder('tmp');
    const demo = await startDemo(cwd, temp);
    const output = demo.stdout();
    expect(output).toMatch(/Sync sync-\S+: completed/);
    const vars = exported(output);
    expect(Object.keys(vars).sort()).toEqual([
      'ADMIN_TOKEN',
      'BRIDGE_URL',
      'INBOUND_SCIM_TOKEN',
      'PORT',
      'WEBHOOK_SECRET',
    ]);
    const port = Number(vars.PORT);
    expect(vars.BRIDGE_URL).toBe(`http://127.0.0.1:${port}`);
    expect(listeningAddress(port)).toBe('0100007F');
    const tokensFile = join(cwd, '.demo', 'tokens.env');
    expect(output).toContain(`Tokens: kept in ${tokensFile}`);
    expect(readFileSync(tokensFile, 'utf8')).toContain(`ADMIN_TOKEN=${vars.ADMIN_TOKEN}\n`);

    // The reference target's URL and token: what arrived on the platform can be checked.
    const [, targetUrl = '', targetToken = ''] =
      /^Reference target +(\S+) +bearer (\S+)$/m.exec(output) ?? [];
    expect(await scimGet(`${targetUrl}/Users?count=1`, targetToken)).toEqual({
      status: 200,
      totalResults: 1000,
    });
    expect(readFileSync(tokensFile, 'utf8')).toContain(`TARGET_TOKEN=${targetToken}\n`);

    // The commands, in order, with the exported variables: the file and SCIM push side by side.
    const commands = output
      .split('\n')
      .filter((line) => /^ {2}(npx|curl) /.test(line))
      .map((line) => line.trim());
    expect(commands.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
      'npx scim-bridge status',
      'npx scim-bridge explain',
      'curl -s -X',
      'curl -s -H',
      'npx scim-bridge explain',
      'npx scim-bridge sync',
    ]);
    const [status, explainFile] = await Promise.all([
      cli(args(commands[0]), vars),
      cli(args(commands[1]), vars),
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('Target: reachable');
    expect(status.stdout).toMatch(/^directory:directory +1000 +50$/m);
    expect(explainFile.code, explainFile.stderr).toBe(0);
    expect(explainFile.stdout).toMatch(/^user:u-0002: in-sync/);
    expect(explainFile.stdout).toMatch(/owner: +directory:directory/);

    // The IdP's push, as the curl line sends it: 201, owned by scim, provisioned beside the file's.
    const pushed = await curl(commands[2] ?? '', vars);
    expect(pushed.status).toBe(201);
    const userName = (pushed.body as { userName: string }).userName;
    await expect
      .poll(
        async () =>
          (await scimGet(`${targetUrl}/Users?filter=userName eq "${userName}"`, targetToken)).totalResults,
        {
          timeout: 20_000,
        },
      )
      .toBe(1);
    expect(await scimGet(`${targetUrl}/Users?count=1`, targetToken)).toEqual({
      status: 200,
      totalResults: 1001,
    });
    // What the IdP sees: only what it pushed.
    expect(await curl(commands[3] ?? '', vars)).toMatchObject({ status: 200, body: { totalResults: 1 } });
    const explainPushed = await cli(args(commands[4]), vars);
    expect(explainPushed.code, explainPushed.stderr).toBe(0);
    expect(explainPushed.stdout).toMatch(/^user:\S+: in-sync \(found by externalId\)/);
    expect(explainPushed.stdout).toMatch(/owner: +scim/);

    // A full sync of the file leaves the pushed user alone; status counts both inputs.
    const sync = await cli(args(commands[5]), vars);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toMatch(/Sync sync-\S+: completed/);
    expect(sync.stdout).toContain(
      'Left to other inputs (never removed by this sync): 1 user, 0 groups (scim 1 user',
    );
    expect(await curl(commands[3] ?? '', vars)).toMatchObject({ status: 200, body: { totalResults: 1 } });
    const after = await scimGet(
      `${targetUrl}/Users?filter=userName eq "${userName}" and active eq true`,
      targetToken,
    );
    expect(after.totalResults).toBe(1);
    const statusAfter = await cli(args(commands[0]), vars);
    expect(statusAfter.stdout).toMatch(/^scim +1 +0$/m);

    // check-config in the shell the variables were pasted into: the demo configures itself.
    const checkConfig = await cli(['check-config'], vars);
    expect(checkConfig.code).toBe(1);
    expect(checkConfig.stderr.endsWith(`\n${NOTHING_CONFIGURED}\n`)).toBe(true);

    // Ctrl-C: exit 0, and the embedded Redis (process and folder) is gone.
    expect(leftBehind(temp).folders).toHaveLength(1);
    expect(leftBehind(temp).processes).toHaveLength(1);
    demo.child.kill('SIGINT');
    expect(await demo.exited).toBe(0);
    expect(leftBehind(temp)).toEqual({ folders: [], processes: [] });

    // A second start in the same folder: the same tokens.
    const again = await startDemo(cwd, temp);
    const second = exported(again.stdout());
    for (const name of ['ADMIN_TOKEN', 'INBOUND_SCIM_TOKEN', 'WEBHOOK_SECRET']) {
      expect(second[name], name).toBe(vars[name]);
    }
    expect(again.stdout()).toMatch(new RegExp(`^Reference target +\\S+ +bearer ${targetToken}$`, 'm'));
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    expect(leftBehind(temp)).toEqual({ folders: [], processes: [] });
  }, 180_000);

  it('with its port in use: one line naming PORT, exit 1, nothing left behind', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const temp = folder('tmp');
      const demo = start(['demo'], { cwd: folder('cwd'), env: { TMPDIR: temp, PORT: String(port) } });
      expect(await demo.exited).toBe(1);
      expect(demo.stderr()).toBe(
        `scim-bridge demo: port ${port} is already in use (on 127.0.0.1) — ` +
          'stop what listens on it, or choose a free port with PORT\n',
      );
      expect(demo.stdout()).toBe('');
      expect(leftBehind(temp)).toEqual({ folders: [], processes: [] });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('scim-bridge check-config with nothing configured', () => {
  it('lists the problems, then says that the demo configures itself; exit 1', async () => {
    const result = await cli(['check-config'], {});
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('scim-bridge: invalid configuration');
    expect(lines.slice(1, -1).every((line) => line.startsWith('  '))).toBe(true);
    expect(lines.at(-1)).toBe(NOTHING_CONFIGURED);
  });

  it('says nothing more once something is configured', async () => {
    const result = await cli(['check-config'], { REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain(NOTHING_CONFIGURED);
    expect(result.stderr).toMatch(/^scim-bridge: invalid configuration\n {2}TARGET_URL: required/);
  });
});
