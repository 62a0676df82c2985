import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'ldapts';

/**
 * A throw-away Active Directory for the directory tests: a Samba AD domain controller (the Debian
 * packages `samba-ad-dc` and `samba-ad-provision`) provisioned into a temporary folder — its own
 * smb.conf, sam.ldb and logs; /etc/samba and /var/lib/samba are never used — with LDAP only
 * (`server services = ldap`, one process), simple binds allowed on plain LDAP, and no DNS.
 *
 * Samba's LDAP port is fixed at 389, so each DC listens on its own loopback address (127.x.y.z,
 * which needs no `ip addr add`), checked free before the start; a DC is ready when that address
 * answers with the domain's own naming context (something else on the port cannot pass for it).
 * Provisioning takes seconds: a test file provisions once (`provisionSambaDc`), seeds the template
 * if it likes, and starts a copy of it per test (`template.start()`: `cp -a`, the paths in
 * etc/smb.conf rewritten). The copies share the domain's SID, GUIDs and invocationId. The DC runs
 * in the foreground as a child of the test (`samba -i`), which also ends it when its stdin closes:
 * a test process that dies takes its DCs with it.
 */

const execFileAsync = promisify(execFile);
const SAMBA = '/usr/sbin/samba';
const SAMBA_TOOL = '/usr/bin/samba-tool';
const PYTHON = '/usr/bin/python3';
const READY_MS = 120_000;

export interface SambaTemplate {
  readonly realm: string;
  /** The domain's naming context, e.g. DC=corp1a2b,DC=example. */
  readonly baseDn: string;
  readonly adminPassword: string;
  /** Starts a copy of the template (stopped) on a free loopback address. */
  start(): Promise<SambaDc>;
  /** Runs `seed` against the template, started once for it, and stops it: every copy then has it. */
  seed(seed: (dc: SambaDc) => Promise<void>): Promise<void>;
  remove(): void;
}

export interface SambaDc {
  /** ldap://127.x.y.z */
  readonly url: string;
  readonly baseDn: string;
  /** Administrator@REALM: a simple bind as the domain's administrator. */
  readonly bindDn: string;
  readonly bindPassword: string;
  /** A new connection bound as the administrator. */
  client(): Promise<Client>;
  /**
   * A file-level backup: stops the DC, copies its folder, starts it again. The DC is down for the
   * copy, as an offline backup of a DC is taken.
   */
  backup(): Promise<string>;
  /**
   * Restores a backup: stops the DC, puts the backup's folder in place of its own, and starts it.
   * With `newInvocationId`, the database is given a new invocationId first, as a domain controller
   * restored from a backup is (without it, the DC is a plain copy of its past: its USNs go back
   * under the same invocationId).
   */
  restore(backup: string, options?: { newInvocationId?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export async function provisionSambaDc(): Promise<SambaTemplate> {
  const root = mkdtempSync(join(tmpdir(), 'scim-bridge-samba-'));
  const template = join(root, 'template');
  const tag = randomBytes(2).toString('hex');
  const realm = `CORP${tag}.EXAMPLE`.toUpperCase();
  const adminPassword = `Adm1n-${randomBytes(6).toString('hex')}!`;
  const baseDn = realm
    .toLowerCase()
    .split('.')
    .map((part) => `DC=${part}`)
    .join(',');
  try {
    await provision(template, realm, adminPassword);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const facts = { realm, baseDn, adminPassword };
  let copies = 0;
  return {
    ...facts,
    start: async () => startCopy(template, join(root, `dc-${++copies}`), facts),
    seed: async (seed) => {
      const dc = await startDc(template, facts);
      try {
        await seed(dc);
      } finally {
        await dc.stop();
      }
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

async function provision(dir: string, realm: string, adminPassword: string): Promise<void> {
  const domain = realm.split('.')[0] ?? 'CORP';
  const options = {
    interfaces: '127.255.255.254/8',
    'bind interfaces only': 'yes',
    'server services': 'ldap',
    'pid directory': dir,
    'log file': join(dir, 'log.samba'),
  };
  // -s /dev/null: nothing of the system's smb.conf (its shares, log paths, workgroup) is inherited.
  await execFileAsync(
    SAMBA_TOOL,
    ['domain', 'provision', '-s', '/dev/null', `--realm=${realm}`, `--domain=${domain}`]
      .concat(['--server-role=dc', '--dns-backend=NONE', '--use-rfc2307', '--host-name=DC1'])
      .concat([`--adminpass=${adminPassword}`, `--targetdir=${dir}`])
      .concat(Object.entries(options).map(([name, value]) => `--option=${name}=${value}`)),
    { maxBuffer: 16 * 1024 * 1024 },
  );
  // Provision does not write these from --option: simple binds on plain LDAP, and the sockets of
  // the process kept in the DC's folder rather than /run/samba.
  const conf = join(dir, 'etc', 'smb.conf');
  const text = readFileSync(conf, 'utf8').replace(
    /^\[global\]$/m,
    `[global]\n\tldap server require strong auth = no\n\tncalrpc dir = ${dir}/ncalrpc\n\twinbindd socket directory = ${dir}/winbindd`,
  );
  writeFileSync(conf, text);
}

type Facts = Pick<SambaTemplate, 'realm' | 'baseDn' | 'adminPassword'>;

async function startCopy(template: string, dir: string, facts: Facts): Promise<SambaDc> {
  await copyFolder(template, dir);
  const conf = join(dir, 'etc', 'smb.conf');
  writeFileSync(conf, readFileSync(conf, 'utf8').split(template).join(dir));
  return startDc(dir, facts);
}

/** Starts the DC of a folder on a free loopback address; restarts keep the address. */
async function startDc(dir: string, facts: Facts): Promise<SambaDc> {
  const address = await freeLoopbackAddress();
  const conf = join(dir, 'etc', 'smb.conf');
  writeFileSync(
    conf,
    readFileSync(conf, 'utf8').replace(/^\s*interfaces = .*$/m, `\tinterfaces = ${address}/8`),
  );
  const url = `ldap://${address}`;
  const bindDn = `Administrator@${facts.realm}`;
  let child = await launch(dir, url, facts.baseDn);
  const dc: SambaDc = {
    url,
    baseDn: facts.baseDn,
    bindDn,
    bindPassword: facts.adminPassword,
    client: async () => {
      const client = new Client({ url, timeout: 30_000, connectTimeout: 10_000 });
      await client.bind(bindDn, facts.adminPassword);
      return client;
    },
    backup: async () => {
      await terminate(child);
      const copy = `${dir}.backup-${randomBytes(3).toString('hex')}`;
      await copyFolder(dir, copy);
      child = await launch(dir, url, facts.baseDn);
      return copy;
    },
    restore: async (backup, options = {}) => {
      await terminate(child);
      rmSync(dir, { recursive: true, force: true });
      await copyFolder(backup, dir);
      if (options.newInvocationId === true) await newInvocationId(dir);
      child = await launch(dir, url, facts.baseDn);
    },
    stop: () => terminate(child),
  };
  return dc;
}

/**
 * Gives the DC's database a new invocationId, offline, through Samba's own Python bindings (what
 * provision and join use to write it): the NTDS Settings object's invocationId replaced.
 */
async function newInvocationId(dir: string): Promise<void> {
  const script = [
    'import sys, uuid, ldb',
    'from samba.samdb import SamDB',
    'from samba.param import LoadParm',
    'from samba.auth import system_session',
    'from samba.ndr import ndr_pack',
    'from samba.dcerpc import misc',
    'lp = LoadParm(); lp.load(sys.argv[1])',
    'db = SamDB(url=sys.argv[2], session_info=system_session(), lp=lp, flags=ldb.FLG_DONT_CREATE_DB)',
    'm = ldb.Message(); m.dn = ldb.Dn(db, str(db.get_dsServiceName()))',
    "m['invocationId'] = ldb.MessageElement(ndr_pack(misc.GUID(str(uuid.uuid4()))), ldb.FLAG_MOD_REPLACE, 'invocationId')",
    'db.modify(m)',
  ].join('\n');
  await execFileAsync(PYTHON, ['-c', script, join(dir, 'etc', 'smb.conf'), join(dir, 'private', 'sam.ldb')]);
}

async function launch(dir: string, url: string, baseDn: string): Promise<ChildProcess> {
  const address = new URL(url).hostname;
  if (await listening(address)) throw new Error(`something already listens on ${address}:389`);
  const conf = join(dir, 'etc', 'smb.conf');
  // -i: foreground, ends when its stdin closes; -M single: one process; -l: no /var/log/samba.
  const child = spawn(SAMBA, ['-i', '-M', 'single', '-s', conf, '-l', dir], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
  const deadline = Date.now() + READY_MS;
  while (!(await answers(url, baseDn))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = tail(join(dir, 'log.samba'));
      throw new Error(`the Samba DC at ${url} did not answer LDAP:\n${output}\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}

/** Whether the rootDSE at `url` names `baseDn` as its default naming context (anonymous read). */
async function answers(url: string, baseDn: string): Promise<boolean> {
  const client = new Client({ url, timeout: 2000, connectTimeout: 2000 });
  try {
    const { searchEntries } = await client.search('', {
      scope: 'base',
      attributes: ['defaultNamingContext'],
    });
    return String(searchEntries[0]?.defaultNamingContext ?? '').toLowerCase() === baseDn.toLowerCase();
  } catch {
    return false;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** A loopback address whose port 389 nobody listens on (nor on every address). */
async function freeLoopbackAddress(): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const address = `127.${randomInt(16, 250)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    if (!(await listening(address))) return address;
  }
  throw new Error('no free loopback address for port 389');
}

function listening(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port: 389 });
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** `cp -a` (the databases' sparse files, modes and times kept), without the stopped DC's pid file. */
async function copyFolder(from: string, to: string): Promise<void> {
  await execFileAsync('cp', ['-a', from, to]);
  rmSync(join(to, 'samba.pid'), { force: true });
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-2000);
  } catch {
    return '';
  }
}
