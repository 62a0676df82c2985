import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decideSetup,
  holdServiceStarts,
  prerequisites,
  type Prerequisite,
} from '../../tools/test-prerequisites.js';

// Real: the decision of `npm test`'s first step on given machines (what is missing, root, apt-get),
// and the step itself in a child process — once with a PATH that holds none of the commands (as on
// a machine without them and without apt-get), once with this machine's, where everything is.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const all = prerequisites({});
const named = (...names: string[]): Prerequisite[] => all.filter((item) => names.includes(item.name));

describe('decideSetup', () => {
  it('goes on when nothing is missing, whoever runs it', () => {
    for (const root of [true, false]) {
      for (const aptGet of [true, false]) {
        expect(decideSetup({ missing: [], root, aptGet })).toEqual({ action: 'ready' });
      }
    }
  });

  it('installs the missing packages, each once, as root with apt-get', () => {
    const decision = decideSetup({
      missing: named('slapd', 'slapadd', 'chromium'),
      root: true,
      aptGet: true,
    });
    expect(decision).toEqual({
      action: 'install',
      packages: ['slapd', 'chromium'],
      line: 'npm test: installing slapd chromium (missing: slapd, slapadd, chromium)',
    });
  });

  it('stops with the sudo command when apt-get is there but it is not root', () => {
    const decision = decideSetup({ missing: named('go', 'sprig (Go)'), root: false, aptGet: true });
    expect(decision).toEqual({
      action: 'stop',
      line:
        'npm test: the tests need go, sprig (Go), missing on this machine — run: sudo sh -c ' +
        "'apt-get update && apt-get install -y --no-install-recommends golang-go golang-github-masterminds-sprig-dev'" +
        ', then run npm test again',
    });
  });

  it('stops naming the packages and the command when there is no apt-get, even as root', () => {
    for (const root of [true, false]) {
      const decision = decideSetup({ missing: named('redis-server', 'a font'), root, aptGet: false });
      expect(decision.action).toBe('stop');
      if (decision.action !== 'stop') continue;
      expect(decision.line).toMatch(
        /^npm test: the tests need redis-server, a font, missing on this machine — /,
      );
      expect(decision.line).toContain(
        'apt-get update && apt-get install -y --no-install-recommends redis-server fonts-liberation',
      );
      expect(decision.line).not.toContain('\n');
    }
  });

  it('asks for what .ci/run installed: redis, Go with sprig and yaml.v3, slapd, ldap-utils, openssl, a Samba AD DC, chromium and a font', () => {
    expect([...new Set(all.flatMap((item) => item.packages))].sort()).toEqual([
      'chromium',
      'fonts-liberation',
      'golang-github-masterminds-sprig-dev',
      'golang-go',
      'golang-gopkg-yaml.v3-dev',
      'ldap-utils',
      'openssl',
      'redis-server',
      'samba-ad-dc',
      'samba-ad-provision',
      'slapd',
    ]);
  });

  it('installs samba-ad-provision beside samba-ad-dc, whose Recommends it only is', () => {
    const decision = decideSetup({
      missing: named('samba', 'samba-tool', 'the Samba AD schema'),
      root: true,
      aptGet: true,
    });
    expect(decision).toMatchObject({ action: 'install', packages: ['samba-ad-dc', 'samba-ad-provision'] });
  });
});

const emptyDir = mkdtempSync(join(tmpdir(), 'scim-bridge-test-setup-'));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

describe('holdServiceStarts', () => {
  it('forbids service starts (exit 101) while packages install, and takes its hook away after', () => {
    const hook = join(emptyDir, 'policy-rc.d');
    const release = holdServiceStarts(hook);
    expect(statSync(hook).mode & 0o777).toBe(0o755);
    expect(spawnSync(hook, ['samba-ad-dc', 'start']).status).toBe(101);
    release();
    expect(existsSync(hook)).toBe(false);
  });

  it('leaves a hook that was already there as it is', () => {
    const hook = join(emptyDir, 'policy-rc.d-present');
    writeFileSync(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    holdServiceStarts(hook)();
    expect(readFileSync(hook, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });
});

function runSetup(env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'tools/test-setup.ts'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('tools/test-setup.ts', () => {
  it('stops with one line and exit 1 where the commands are missing and apt-get is not there', () => {
    const result = runSetup({ PATH: emptyDir });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^npm test: the tests need redis-server, go, ldap-utils, openssl[^\n]*\n$/);
    expect(result.stderr).toContain('apt-get install -y --no-install-recommends redis-server golang-go');
  });

  it('says nothing and exits 0 where everything is there', () => {
    const chromium = process.env.CHROMIUM_PATH;
    const result = runSetup({
      PATH: process.env.PATH ?? '',
      ...(chromium ? { CHROMIUM_PATH: chromium } : {}),
    });
    expect(result).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});
