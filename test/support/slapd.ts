import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../../src/ops/embedded-redis.js';

/**
 * A private OpenLDAP server for the directory tests: the Debian `slapd` binary run as the test's
 * own user on free ports (ldap:// and ldaps://), with a temporary slapd.conf, an mdb database in a
 * temporary directory loaded from LDIF fixtures by slapadd, and a throw-away CA and server
 * certificate (made with openssl) for ldaps:// and StartTLS. The database carries the overlays a
 * delta read uses, as a production server would: syncprov (its contextCSN), accesslog (the writes,
 * logged to `cn=accesslog`, readable by every authenticated account) and refint (group members
 * follow a renamed or deleted entry). Needs the `slapd`, `ldap-utils` and `openssl` packages; the
 * system's own slapd service is never used.
 */

const execFileAsync = promisify(execFile);

export const FIXTURES = fileURLToPath(new URL('../fixtures/ldap/', import.meta.url));
const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SLAPCAT = '/usr/sbin/slapcat';
const SYSTEM_SCHEMAS = ['core', 'cosine', 'inetorgperson'].map((name) => `/etc/ldap/schema/${name}.schema`);
const MODULE_PATH = '/usr/lib/ldap';

export interface SlapdOptions {
  /** The database suffix, e.g. dc=example,dc=com. */
  suffix: string;
  /** LDIF fixture files (names under test/fixtures/ldap/ or absolute paths), loaded in order. */
  ldif: readonly string[];
  /** Schema files loaded after core, cosine and inetorgperson (names under test/fixtures/ldap/). */
  schemas?: readonly string[];
  /** slapd.conf lines for the database: limits, for instance. */
  databaseConfig?: readonly string[];
  /** slapd.conf lines for the access log's database (cn=accesslog): limits, for instance. */
  logDatabaseConfig?: readonly string[];
  /** The directory database's largest size in bytes (mdb maxsize); 32 MiB by default. */
  maxSizeBytes?: number;
}

export interface Slapd {
  /** ldap://127.0.0.1:<port> */
  readonly url: string;
  /** ldaps://127.0.0.1:<port> */
  readonly ldapsUrl: string;
  /** PEM file of the CA that signed the server's certificate (for 127.0.0.1 and localhost). */
  readonly caFile: string;
  readonly rootDn: string;
  readonly rootPassword: string;
  /** The directory database as an LDIF file now (slapcat, operational attributes included). */
  backup(): Promise<string>;
  /** Stops the server, replaces the directory database with an LDIF backup, starts it again. */
  restore(ldif: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startSlapd(options: SlapdOptions): Promise<Slapd> {
  for (const binary of [SLAPD, SLAPADD])
    if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run test:setup\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-slapd-'));
  try {
    const tls = await makeCertificates(dir);
    const rootDn = `cn=admin,${options.suffix}`;
    const rootPassword = randomBytes(12).toString('hex');
    const config = join(dir, 'slapd.conf');
    mkdirSync(join(dir, 'db'));
    mkdirSync(join(dir, 'log'));
    writeFileSync(config, slapdConf(options, dir, tls, rootDn, rootPassword));
    const load = async (files: readonly string[]) => {
      for (const file of files)
        await execFileAsync(SLAPADD, ['-q', '-f', config, '-b', options.suffix, '-l', file]);
    };
    await load(options.ldif.map(fixturePath));
    const [port, ldapsPort] = [await freePort(), await freePort()];
    let child = await launch(config, port, ldapsPort);
    let backups = 0;
    return {
      url: `ldap://127.0.0.1:${port}`,
      ldapsUrl: `ldaps://127.0.0.1:${ldapsPort}`,
      caFile: tls.ca,
      rootDn,
      rootPassword,
      backup: async () => {
        const file = join(dir, `backup-${++backups}.ldif`);
        await execFileAsync(SLAPCAT, ['-f', config, '-b', options.suffix, '-l', file]);
        return file;
      },
      restore: async (ldif) => {
        await terminate(child);
        rmSync(join(dir, 'db'), { recursive: true, force: true });
        mkdirSync(join(dir, 'db'));
        await load([ldif]);
        child = await launch(config, port, ldapsPort);
      },
      stop: async () => {
        await terminate(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function fixturePath(name: string): string {
  return name.startsWith('/') ? name : join(FIXTURES, name);
}

interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

function slapdConf(options: SlapdOptions, dir: string, tls: TlsFiles, rootDn: string, rootPassword: string) {
  const schemas = [...SYSTEM_SCHEMAS, ...(options.schemas ?? []).map(fixturePath)];
  return [
    ...schemas.map((file) => `include ${file}`),
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    `modulepath ${MODULE_PATH}`,
    'moduleload back_mdb',
    'moduleload syncprov',
    'moduleload accesslog',
    'moduleload refint',
    `TLSCACertificateFile ${tls.ca}`,
    `TLSCertificateFile ${tls.cert}`,
    `TLSCertificateKeyFile ${tls.key}`,
    // The access log (slapo-accesslog): every successful write to the directory below.
    'database mdb',
    'suffix "cn=accesslog"',
    `rootdn "${rootDn}"`,
    `directory ${join(dir, 'log')}`,
    'maxsize 33554432',
    'index reqStart eq',
    'overlay syncprov',
    ...(options.logDatabaseConfig ?? []),
    'access to * by users read by * none',
    'database mdb',
    `suffix "${options.suffix}"`,
    `rootdn "${rootDn}"`,
    `rootpw ${rootPassword}`,
    `directory ${join(dir, 'db')}`,
    `maxsize ${options.maxSizeBytes ?? 33554432}`,
    'index entryUUID eq',
    'overlay syncprov',
    'overlay accesslog',
    'logdb cn=accesslog',
    'logops writes',
    'logsuccess TRUE',
    'overlay refint',
    'refint_attributes member uniqueMember',
    ...(options.databaseConfig ?? []),
    // Passwords are only for binding; authenticated accounts read everything else.
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by users read by * none',
    '',
  ].join('\n');
}

/** A CA and a server certificate for 127.0.0.1 and localhost, valid for two days. */
async function makeCertificates(dir: string): Promise<TlsFiles> {
  const files = { ca: join(dir, 'ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server.key') };
  const caKey = join(dir, 'ca.key');
  const csr = join(dir, 'server.csr');
  const extensions = join(dir, 'server.ext');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(
    ['req', '-x509', ...ec, '-keyout', caKey, '-out', files.ca, '-days', '2']
      .concat(['-subj', '/CN=scim-bridge test CA', '-addext', 'basicConstraints=critical,CA:TRUE'])
      .concat(['-addext', 'keyUsage=critical,keyCertSign,cRLSign']),
  );
  await openssl(['req', ...ec, '-keyout', files.key, '-out', csr, '-subj', '/CN=localhost']);
  writeFileSync(
    extensions,
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  await openssl(
    ['x509', '-req', '-in', csr, '-CA', files.ca, '-CAkey', caKey, '-CAcreateserial'].concat([
      '-out',
      files.cert,
      '-days',
      '2',
      '-extfile',
      extensions,
    ]),
  );
  return files;
}

async function openssl(args: string[]): Promise<void> {
  await execFileAsync('openssl', args);
}

async function launch(config: string, port: number, ldapsPort: number): Promise<ChildProcess> {
  const urls = `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${ldapsPort}/`;
  // -d keeps slapd in the foreground (a child the test can stop); level 0 keeps it quiet.
  const child = spawn(SLAPD, ['-f', config, '-h', urls, '-d', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`slapd exited with ${code}: ${output}`)));
  });
  try {
    await Promise.race([Promise.all([waitForPort(port), waitForPort(ldapsPort)]), exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  child.removeAllListeners('exit');
  child.removeAllListeners('error');
  // A test run that dies without stopping the server must not leave it behind.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
  return child;
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`slapd did not listen on port ${port} within ${timeoutMs} ms`);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
