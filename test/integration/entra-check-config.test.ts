import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEntraGraph, type EntraGraphServer } from '../support/entra-graph.js';
import { testRedisUrl } from '../support/redis.js';

// Real: the `scim-bridge check-config` command as an operator runs it (a child process) and the
// Entra sign-in and Graph emulation over HTTP. What is checked: a wrong client secret — its ID
// pasted instead of its value, the usual mistake — is said in plain words, and check-config exits 1.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('check-config against Microsoft Entra ID', () => {
  let entra: EntraGraphServer;
  let env: Record<string, string>;
  let secret: string;
  let secretId: string;

  beforeAll(async () => {
    entra = await startEntraGraph();
    const app = entra.createApp({ permissions: ['User.Read.All', 'GroupMember.Read.All'] });
    ({ secret, secretId } = entra.addSecret(app.clientId));
    env = {
      PATH: process.env.PATH ?? '',
      REDIS_URL: testRedisUrl(),
      TARGET_URL: 'http://127.0.0.1:9',
      TARGET_TOKEN: 'check-config-target-token',
      DIRECTORY_SOURCE: 'entra',
      ENTRA_TENANT_ID: entra.tenantId,
      ENTRA_CLIENT_ID: app.clientId,
      ENTRA_AUTHORITY_HOST: entra.loginUrl,
      ENTRA_GRAPH_URL: entra.graphUrl,
    };
  });
  afterAll(async () => {
    await entra?.close();
  });

  const checkConfig = async (clientSecret: string) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', 'src/cli/run.ts', 'check-config'],
        { cwd: ROOT, env: { ...env, ENTRA_CLIENT_SECRET: clientSecret }, timeout: 60_000 },
      );
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout: string; stderr: string };
      return { status: failed.code ?? -1, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it('says a secret ID pasted for the secret is wrong, in plain words, and exits 1; the right secret passes', async () => {
    const wrong = await checkConfig(secretId);
    expect(wrong.status).toBe(1);
    expect(wrong.stdout).toMatch(
      /^# directory:directory \(.*\): sign-in: failed — .*secret's ID was pasted/m,
    );
    expect(wrong.stderr).toContain("a directory's checks failed");
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain(secretId);

    const right = await checkConfig(secret);
    expect(right.status).toBe(0);
    expect(right.stdout).toMatch(/^# directory:directory \(.*\): sign-in: ok$/m);
    expect(right.stdout).toMatch(/^# directory:directory \(.*\): User\.Read\.All: ok$/m);
  });
});
