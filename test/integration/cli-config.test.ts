import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A CONFIG_FILE with an LDAP source and the given extra lines under directory.ldap. */
function ldapConfigFile(name: string, url: string, extra: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      'directory:',
      '  source: ldap',
      '  ldap:',
      `    url: ${url}`,
      '    bindDn: cn=bridge,dc=example,dc=com',
      '    userBase: ou=people,dc=example,dc=com',
      '    groupBase: ou=groups,dc=example,dc=com',
      ...extra.split('\n').map((line) => `    ${line}`),
      '',
    ].join('\n'),
  );
  return path;
}

function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const valid = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  TARGET_URL: 'https://acme.example.com',
  TARGET_TOKEN: 'target-token-for-cli-tests-01',
};

// Real: the CLI in a child process, as an operator starts it.
describe('scim-bridge check-config', () => {
  it('prints the effective configuration with secrets masked', () => {
    const { status, stdout } = run(['check-config'], valid);
    expect(status).toBe(0);
    expect(stdout).toContain('https://acme.example.com');
    expect(stdout).not.toContain(valid.TARGET_TOKEN);
    // The guards' limits read as they are configured, not as the parsed objects.
    expect(stdout).toMatch(/^ {2}deprovisionLimit: 500,20%$/m);
    expect(stdout).toMatch(/^ {2}sourceShrinkLimit: 30%$/m);
    // Above the settings: Redis as it is now (reachable or not), and how durable an answer is.
    expect(stdout).toMatch(/^# redis: single server 127\.0\.0\.1:6379[ ;]/m);
    expect(stdout).toContain(
      '# redis: inputs are answered once the primary holds their write (REDIS_MIN_REPLICAS=0): a failover can lose the last ones\n',
    );
  });

  it('stops on LDAP settings only building the source can check: one line each, exit 1, no stack', () => {
    const tls = run(['check-config'], {
      ...valid,
      LDAP_BIND_PASSWORD: 'bind-password-0001',
      CONFIG_FILE: ldapConfigFile('tls.yaml', 'ldaps://ldap.example.com', 'startTls: true'),
    });
    expect(tls.status).toBe(1);
    expect(tls.stderr).toBe(
      'scim-bridge: invalid configuration\n' +
        '  directory.ldap.startTls: not with an ldaps:// URL, which is TLS already\n',
    );

    const mapping = run(['check-config'], {
      ...valid,
      LDAP_BIND_PASSWORD: 'bind-password-0001',
      CONFIG_FILE: ldapConfigFile('map.yaml', 'ldap://ldap.example.com', 'userAttributes:\n  nickname: cn'),
    });
    expect(mapping.status).toBe(1);
    expect(mapping.stderr).toMatch(
      /^scim-bridge: invalid configuration\n {2}directory\.ldap\.userAttributes\.nickname: not a mapped attribute; expected one of .+\n$/,
    );
  });
});
