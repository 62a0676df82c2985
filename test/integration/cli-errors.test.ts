import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ADMIN_TOKEN, startAdminFixture, type AdminFixture } from './admin-fixture.js';
import { TARGET_TOKEN } from '../support/engine.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from '../support/redis.js';

// Real: the CLI in child processes, as an operator runs it (tsx from the sources); a bridge (Redis,
// BullMQ, HTTP) against the reference target for the answers it refuses; a closed port; a port held
// by a plain TCP server. Each case asserts what an operator sees: exit 1 and one line on stderr.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-cli-errors-'));
const file = (name: string, text?: string) => {
  const path = join(dir, name);
  if (text !== undefined) writeFileSync(path, text);
  return path;
};
const MISSING = file('missing.json');
const NOT_JSON = file('not-json.json', '{\n  "users": [\n    {"id": "u1",,}\n  ]\n}\n');
const INVALID = file(
  'invalid.json',
  JSON.stringify({ users: [{ id: 'u1' }, { userName: 'b@x' }], groups: [] }),
);
// The bad user is on the file's line 2: the options line the upload puts first is not counted.
const INVALID_NDJSON = file(
  'invalid.ndjson',
  '{"user": {"id": "u1", "userName": "a@x"}}\n{"user": {"id": "u2"}}\n',
);
const EVENTS = file('event.json', JSON.stringify({ id: 'e1', type: 'user.deleted', data: { id: 'u1' } }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string>): Promise<Result> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A port nothing listens on: one the OS handed out, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let fixture: AdminFixture;
let bridge: string;
let closed: string;
let taken: Server;
const keyPrefix = uniquePrefix('cli-errors');

beforeAll(async () => {
  fixture = await startAdminFixture();
  bridge = fixture.engine.bridge.http.url;
  closed = `http://127.0.0.1:${await closedPort()}`;
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve));
  await fixture?.close();
  await deleteKeys(keyPrefix);
  rmSync(dir, { recursive: true, force: true });
});

interface Case {
  name: string;
  args: () => string[];
  env?: () => Record<string, string>;
  /** What the line must say: the cause, and what to do. */
  says: () => RegExp[];
}

const token = { ADMIN_TOKEN };
const wrongToken = { ADMIN_TOKEN: 'not-the-admin-token-000001' };
const unreachable = (): RegExp[] => [
  new RegExp(`cannot reach the bridge at ${closed} \\(connection refused\\)`),
  /--url/,
];
const refusedToken = (): RegExp[] => [/refused the admin token \(401/, /ADMIN_TOKEN/];
const adminCases = (command: string, ...rest: string[]): Case[] => [
  {
    name: `${command} against a closed port`,
    args: () => [command, ...rest, '--url', closed],
    env: () => token,
    says: unreachable,
  },
  {
    name: `${command} with a wrong token`,
    args: () => [command, ...rest, '--url', bridge],
    env: () => wrongToken,
    says: refusedToken,
  },
];

const cases: Case[] = [
  {
    name: 'sync without a token',
    args: () => ['sync', '--url', bridge],
    says: () => [/ADMIN_TOKEN is not set/],
  },
  ...adminCases('sync'),
  {
    name: 'sync of an input that cannot be read in full',
    args: () => ['sync', '--input', 'nonexistent', '--url', bridge],
    env: () => token,
    says: () => [/input: not an input that can be read in full/],
  },
  {
    name: 'sync with a missing snapshot file',
    args: () => ['sync', '--snapshot', MISSING, '--url', bridge],
    env: () => token,
    says: () => [new RegExp(`cannot read ${MISSING}: no such file`)],
  },
  {
    name: 'sync with a snapshot that is not JSON',
    args: () => ['sync', '--snapshot', NOT_JSON, '--url', bridge],
    env: () => token,
    says: () => [new RegExp(`${NOT_JSON} is not JSON \\(unexpected "," at line 3, column 17\\)`), /fix it/],
  },
  {
    name: 'sync with an invalid snapshot',
    args: () => ['sync', '--snapshot', INVALID, '--url', bridge],
    env: () => token,
    says: () => [
      /Invalid snapshot: 2 problems \(400 invalid_input\); first of 2: users\[0\]\.userName: required/,
    ],
  },
  {
    name: 'sync with an invalid NDJSON snapshot, naming the line of the file',
    args: () => ['sync', '--snapshot', INVALID_NDJSON, '--url', bridge],
    env: () => token,
    says: () => [
      /Invalid snapshot: 1 problem \(400 invalid_input\); first of 1: line 2: users\[1\]\.userName: required/,
    ],
  },
  ...adminCases('status'),
  ...adminCases('failures'),
  ...adminCases('explain', 'user', 'u1'),
  {
    name: 'send-event with a missing file',
    args: () => ['send-event', MISSING, '--url', bridge],
    env: () => ({ WEBHOOK_SECRET: 'webhook-secret-for-tests-0003' }),
    says: () => [new RegExp(`cannot read ${MISSING}: no such file`)],
  },
  {
    name: 'send-event against a closed port',
    args: () => ['send-event', EVENTS, '--url', closed],
    env: () => ({ WEBHOOK_SECRET: 'webhook-secret-for-tests-0003' }),
    says: unreachable,
  },
  {
    name: 'all with its port taken',
    args: () => ['all'],
    env: () => ({
      PORT: String((taken.address() as AddressInfo).port),
      HOST: '127.0.0.1',
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: keyPrefix,
      TARGET_URL: fixture.target.url,
      TARGET_TOKEN,
      SYNC_SCHEDULE: '',
    }),
    says: () => [new RegExp(`port ${(taken.address() as AddressInfo).port} is already in use`), /PORT/],
  },
];

describe('scim-bridge: a failing command prints one line and exits 1', () => {
  it.concurrent.for(cases)('$name', async ({ args, env, says }, { expect }) => {
    const command = args()[0] ?? '';
    const result = await runCli(args(), env?.() ?? {});
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^[^\n]+\n$/);
    const line = result.stderr.trimEnd();
    expect(line.startsWith(`scim-bridge ${command}: `), line).toBe(true);
    expect(line).toMatch(/ — \S/);
    for (const pattern of says()) expect(line).toMatch(pattern);
    expect(`${result.stdout}\n${result.stderr}`).not.toMatch(/^\s+at /m);
    // Only the roles log (JSON lines, stacks escaped inside); the other commands print nothing more.
    if (command !== 'all') expect(result.stdout).toBe('');
  });
});
