import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-cli-scope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Real: the CLI in a child process, as an operator starts it, with a CONFIG_FILE.
describe('scim-bridge check-config with scopes and mappings', () => {
  it('refuses bad expressions before anything runs: one line each, naming the setting and the position', () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(
      path,
      [
        'directory:',
        '  scope:',
        '    users: \'memberOf("cn=eng,dc=example,dc=com") &&\'',
        '  mapping:',
        '    users:',
        "      userName: 'uid + 1'",
        '      familyName: \'replace(sn, "(a+)+$", "")\'',
        'okta:',
        '  mapping:',
        '    users:',
        "      active: 'status'",
        '',
      ].join('\n'),
    );
    const result = run(['check-config'], {
      REDIS_URL: 'redis://127.0.0.1:6379',
      TARGET_URL: 'https://acme.example.com',
      TARGET_TOKEN: 'target-token-for-cli-tests-01',
      CONFIG_FILE: path,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'scim-bridge: invalid configuration\n' +
        '  directory.scope.users: at line 1, column 40: Unexpected token: EOF\n' +
        '  directory.mapping.users.userName: at line 1, column 1: no such overload: string + int\n' +
        '  directory.mapping.users.familyName: at line 1, column 1: replace: refused pattern (a nested quantifier)\n' +
        '  okta.mapping.users.active: gives string, expected true or false\n',
    );
  });
});
