import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** A self-signed certificate and its private key, both PEM, as an app's certificate credential. */
export interface CertificatePair {
  certificatePem: string;
  privateKeyPem: string;
}

/**
 * Makes a self-signed RSA certificate with the `openssl` CLI (node:crypto signs and verifies but
 * cannot issue X.509), in a private temporary folder removed afterwards.
 */
export async function generateCertificate(
  options: { days?: number; commonName?: string } = {},
): Promise<CertificatePair> {
  const folder = await mkdtemp(join(tmpdir(), 'entra-cert-'));
  try {
    const key = join(folder, 'key.pem');
    const cert = join(folder, 'cert.pem');
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      String(options.days ?? 30),
      '-subj',
      `/CN=${options.commonName ?? 'scim-bridge entra test'}`,
    ]);
    return { certificatePem: await readFile(cert, 'utf8'), privateKeyPem: await readFile(key, 'utf8') };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
