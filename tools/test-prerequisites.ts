/**
 * What the test suite needs from the machine besides Node and npm packages, the Debian packages that
 * provide it, and the decision `npm test` takes before running anything (tools/test-setup.ts): go on,
 * install the missing packages (root with apt-get, as in CI), or stop with the command to run.
 * The decision is a pure function of what was found, so it is tested with given machines.
 */
import { accessSync, constants, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface Prerequisite {
  /** What is missing, as the stop line names it. */
  name: string;
  /** The Debian packages that provide it. */
  packages: readonly string[];
  /** How to find it: a command on PATH, an executable file, or a folder with something in it. */
  check: { command: string } | { file: string } | { folder: string };
}

/**
 * The paths are those the tests use: redis-server also runs the Sentinel and Cluster topologies
 * (test/support/redis-node.ts: `--sentinel`, `cluster-enabled`, set up with CLUSTER commands, so
 * no redis-cli; Redis 7 for `enable-debug-command`, as Debian 12 ships); test/support/slapd.ts
 * runs /usr/sbin/slapd and slapadd, test/support/samba-dc.ts provisions with /usr/bin/samba-tool
 * (which needs the AD schema files of samba-ad-provision, only a Recommends of samba-ad-dc) and
 * runs /usr/sbin/samba,
 * test/e2e/dashboard.test.ts runs CHROMIUM_PATH or /usr/bin/chromium, test/helm/chart-renderer.ts
 * builds with GOPATH=/usr/share/gocode (Debian's packaged Go libraries, no module download).
 */
export function prerequisites(env: NodeJS.ProcessEnv): Prerequisite[] {
  const gocode = '/usr/share/gocode/src';
  return [
    { name: 'redis-server', packages: ['redis-server'], check: { command: 'redis-server' } },
    { name: 'go', packages: ['golang-go'], check: { command: 'go' } },
    {
      name: 'sprig (Go)',
      packages: ['golang-github-masterminds-sprig-dev'],
      check: { folder: `${gocode}/github.com/Masterminds/sprig` },
    },
    {
      name: 'yaml.v3 (Go)',
      packages: ['golang-gopkg-yaml.v3-dev'],
      check: { folder: `${gocode}/gopkg.in/yaml.v3` },
    },
    { name: 'slapd', packages: ['slapd'], check: { file: '/usr/sbin/slapd' } },
    { name: 'slapadd', packages: ['slapd'], check: { file: '/usr/sbin/slapadd' } },
    { name: 'ldap-utils', packages: ['ldap-utils'], check: { command: 'ldapsearch' } },
    { name: 'openssl', packages: ['openssl'], check: { command: 'openssl' } },
    { name: 'samba', packages: ['samba-ad-dc'], check: { file: '/usr/sbin/samba' } },
    { name: 'samba-tool', packages: ['samba-ad-dc'], check: { file: '/usr/bin/samba-tool' } },
    {
      name: 'the Samba AD schema',
      packages: ['samba-ad-provision'],
      check: { folder: '/usr/share/samba/setup/ad-schema' },
    },
    { name: 'chromium', packages: ['chromium'], check: { file: env.CHROMIUM_PATH || '/usr/bin/chromium' } },
    { name: 'a font', packages: ['fonts-liberation'], check: { folder: '/usr/share/fonts' } },
  ];
}

/** What was found on the machine. */
export interface Machine {
  /** The prerequisites that were not found. */
  missing: readonly Prerequisite[];
  /** Running as root: apt-get may install. */
  root: boolean;
  /** apt-get is on PATH. */
  aptGet: boolean;
}

export type SetupDecision =
  | { action: 'ready' }
  | { action: 'install'; packages: string[]; line: string }
  | { action: 'stop'; line: string };

const APT_INSTALL = 'apt-get install -y --no-install-recommends';

export function decideSetup(machine: Machine): SetupDecision {
  if (machine.missing.length === 0) return { action: 'ready' };
  const packages = [...new Set(machine.missing.flatMap((item) => item.packages))];
  const names = machine.missing.map((item) => item.name).join(', ');
  if (machine.root && machine.aptGet) {
    return {
      action: 'install',
      packages,
      line: `npm test: installing ${packages.join(' ')} (missing: ${names})`,
    };
  }
  const command = `apt-get update && ${APT_INSTALL} ${packages.join(' ')}`;
  if (machine.aptGet) {
    return { action: 'stop', line: stopLine(names, `run: sudo sh -c '${command}'`) };
  }
  return {
    action: 'stop',
    line: stopLine(names, `no apt-get here: install them (on Debian or Ubuntu, as root: ${command})`),
  };
}

/** After an install, what is still missing (a package that did not provide what was expected). */
export function stillMissingLine(missing: readonly Prerequisite[]): string {
  const names = missing.map((item) => item.name).join(', ');
  return `npm test: still missing after apt-get install: ${names} — install them by hand, then run npm test again`;
}

function stopLine(names: string, what: string): string {
  return `npm test: the tests need ${names}, missing on this machine — ${what}, then run npm test again`;
}

/** Debian's hook that tells package scripts whether they may start services (invoke-rc.d). */
export const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/**
 * Keeps the packages' install scripts from starting their system services (slapd on port 389,
 * smbd, nmbd, winbind, samba-ad-dc): the tests start private servers of their own, which a system
 * service would stand in the way of. A policy-rc.d that exits 101 ("action forbidden") is put in
 * place when there is none, and removed by the function returned; one already there is left as it
 * is (containers ship one).
 */
export function holdServiceStarts(path = POLICY_RC_D): () => void {
  try {
    statSync(path);
    return () => undefined;
  } catch {
    writeFileSync(path, '#!/bin/sh\n# npm test: no service starts while it installs packages\nexit 101\n', {
      mode: 0o755,
    });
    return () => rmSync(path, { force: true });
  }
}

/** Looks for each prerequisite; PATH and CHROMIUM_PATH come from `env`. */
export function probeMachine(env: NodeJS.ProcessEnv, root: boolean): Machine {
  const missing = prerequisites(env).filter((item) => !isPresent(item.check, env));
  return { missing, root, aptGet: onPath('apt-get', env) };
}

function isPresent(check: Prerequisite['check'], env: NodeJS.ProcessEnv): boolean {
  if ('command' in check) return onPath(check.command, env);
  if ('file' in check) return isExecutable(check.file);
  return hasEntries(check.folder);
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.some((dir) => isExecutable(join(dir, command)));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function hasEntries(folder: string): boolean {
  try {
    return readdirSync(folder).length > 0;
  } catch {
    return false;
  }
}
