import { readFileSync } from 'node:fs';
import type { ClientCredential } from '../../../api-client/auth/client-credentials.js';
import { BridgeError } from '../../../domain/errors.js';
import { fileSecret } from '../../../ops/secret-file.js';
import type { Logger } from '../../../ops/logger.js';

/**
 * The app's credential (learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow):
 * a client secret, read as it is now at each token request (a rotated ENTRA_CLIENT_SECRET_FILE);
 * or a certificate, from a PEM file holding the certificate and its private key, re-read when the
 * file changes (a renewed certificate applies without a restart) and signing a client assertion
 * (certificate-credentials: PS256 with `x5t#S256`). A file whose new contents lack either part
 * keeps the last good ones, with a warning. Nothing here ever quotes the file.
 */

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const PRIVATE_KEY = /-----BEGIN (RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/;
const ENCRYPTED_KEY = /-----BEGIN ENCRYPTED PRIVATE KEY-----/;

export function entraCredential(
  settings: { clientCertificateFile: string },
  secret: () => string,
  context: { name: string; logger?: Logger },
): ClientCredential {
  const path = settings.clientCertificateFile;
  if (path === '') return { secret };
  const initial = readPem(path, `the ${context.name} directory's entra.clientCertificateFile`);
  const { logger } = context;
  const pem = fileSecret(path, initial, {
    problem: pemProblem,
    onRefused: (problem) =>
      logger?.warn(
        { setting: 'ENTRA_CLIENT_CERTIFICATE_FILE' },
        `ENTRA_CLIENT_CERTIFICATE_FILE: new contents not used (${problem}); keeping the previous certificate`,
      ),
  });
  return {
    certificate: () => CERTIFICATE.exec(pem())?.[0] ?? '',
    privateKey: () => PRIVATE_KEY.exec(pem())?.[0] ?? '',
  };
}

/** Why a PEM file cannot sign a client assertion, or undefined. */
export function pemProblem(text: string): string | undefined {
  if (!CERTIFICATE.test(text)) return 'holds no PEM certificate';
  if (ENCRYPTED_KEY.test(text)) return 'holds an encrypted private key (the bridge needs it unencrypted)';
  if (!PRIVATE_KEY.test(text)) return 'holds no PEM private key';
  return undefined;
}

/** The file as it is at start-up; `invalid_input` naming the setting when it cannot be used. */
function readPem(path: string, where: string): string {
  let problem: string | undefined;
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
    problem = pemProblem(text);
  } catch (error) {
    problem = `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`;
  }
  if (problem === undefined) return text;
  const line = `${where}: ${path}: ${problem} — expected a PEM file with the certificate and its private key`;
  throw new BridgeError('invalid_input', line, { problems: [line] });
}
