import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Throw-away RSA keys and a self-signed certificate made with the openssl command, and JWS
 * signatures and certificate thumbprints checked with it: what a token endpoint would check, done
 * by a different implementation than the bridge's (node:crypto). Needs the `openssl` package.
 */

const run = promisify(execFile);

export interface TestKeys {
  dir: string;
  /** A certificate (PEM) and its private key (PKCS#8 PEM). */
  certificate: string;
  certificateKey: string;
  /** A second RSA private key (PKCS#8 PEM), as in a Google service account key file. */
  serviceKey: string;
  close(): void;
}

export async function makeTestKeys(): Promise<TestKeys> {
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-keys-'));
  const at = (name: string) => join(dir, name);
  await run(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('app.key')].concat([
      '-out',
      at('app.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=scim-bridge test app',
    ]),
  );
  await run('openssl', ['x509', '-in', at('app.crt'), '-pubkey', '-noout', '-out', at('app.pub')]);
  await run('openssl', [
    'genpkey',
    '-algorithm',
    'RSA',
    '-pkeyopt',
    'rsa_keygen_bits:2048',
    '-out',
    at('sa.key'),
  ]);
  await run('openssl', ['pkey', '-in', at('sa.key'), '-pubout', '-out', at('sa.pub')]);
  return {
    dir,
    certificate: readFileSync(at('app.crt'), 'utf8'),
    certificateKey: readFileSync(at('app.key'), 'utf8'),
    serviceKey: readFileSync(at('sa.key'), 'utf8'),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The certificate's SHA-1 or SHA-256 thumbprint, base64url (as `x5t` / `x5t#S256` carry it). */
export async function thumbprint(keys: TestKeys, digest: 'sha1' | 'sha256'): Promise<string> {
  const { stdout } = await run('openssl', [
    'x509',
    '-in',
    join(keys.dir, 'app.crt'),
    '-noout',
    '-fingerprint',
    `-${digest}`,
  ]);
  const hex = stdout.trim().replace(/^.*=/, '').replace(/:/g, '');
  return Buffer.from(hex, 'hex').toString('base64url');
}

/** Whether openssl verifies a compact JWS signed RS256 or PS256 with the app's or the service key. */
export async function verifiesJws(
  keys: TestKeys,
  jws: string,
  key: 'app' | 'sa',
  alg: 'RS256' | 'PS256',
): Promise<boolean> {
  const [header, payload, signature] = jws.split('.');
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const data = join(keys.dir, `data-${stamp}`);
  const sig = join(keys.dir, `sig-${stamp}`);
  writeFileSync(data, `${header}.${payload}`);
  writeFileSync(sig, Buffer.from(signature ?? '', 'base64url'));
  const pss = alg === 'PS256' ? ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32'] : [];
  try {
    const args = [
      'dgst',
      '-sha256',
      ...pss,
      '-verify',
      join(keys.dir, `${key}.pub`),
      '-signature',
      sig,
      data,
    ];
    const { stdout } = await run('openssl', args);
    return stdout.includes('Verified OK');
  } catch {
    return false;
  } finally {
    rmSync(data, { force: true });
    rmSync(sig, { force: true });
  }
}

/** The header and claims of a compact JWS, decoded (not verified). */
export function decodeJws(jws: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const decode = (part = '') =>
    JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;
  const [header, claims] = jws.split('.');
  return { header: decode(header), claims: decode(claims) };
}
