import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, NoSuchObjectError, ResultCodeError } from 'ldapts';
import { BridgeError } from '../../../domain/errors.js';

/**
 * An authenticated LDAP connection: `ldaps://`, or `ldap://` upgraded with StartTLS (RFC 4511
 * §4.14) before the bind when asked, verifying the server's certificate against `caFile` (or the
 * system's CAs). Failures become `source_unavailable` errors naming the server and the step that
 * failed, never the password; those that trying again cannot fix (a refused bind, a certificate
 * that does not verify, a base DN that does not exist) are not retryable.
 */

export interface LdapConnectionSettings {
  url: string;
  bindDn: string;
  bindPassword: string;
  startTls: boolean;
  caFile: string;
  rejectUnauthorized: boolean;
  timeoutSeconds: number;
}

export type LdapStep = 'connect' | 'StartTLS' | 'bind' | 'search';

export async function openLdapConnection(settings: LdapConnectionSettings): Promise<Client> {
  const tlsOptions = await tlsSettings(settings);
  const timeout = settings.timeoutSeconds * 1000;
  const url = new URL(settings.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const secure = url.protocol === 'ldaps:';
  const client = new Client({
    url: settings.url,
    timeout,
    connectTimeout: timeout,
    ...(secure ? { tlsOptions: { ...tlsOptions, ...serverName(host) } } : {}),
  });
  let step: LdapStep = 'connect';
  try {
    if (settings.startTls) {
      step = 'StartTLS';
      await client.startTLS({ ...tlsOptions, host, ...serverName(host) });
    }
    if (settings.bindDn !== '') {
      step = 'bind';
      await client.bind(settings.bindDn, settings.bindPassword);
    }
    return client;
  } catch (error) {
    await client.unbind().catch(() => undefined);
    throw ldapError(error, step, settings);
  }
}

/** The error of a failed LDAP step, as the bridge reports it. */
export function ldapError(
  error: unknown,
  step: LdapStep,
  settings: Pick<LdapConnectionSettings, 'url' | 'bindDn' | 'bindPassword'>,
  base?: string,
): BridgeError {
  const where = serverLabel(settings.url);
  // ldapts connects on the first operation: a refused connection surfaces from bind or StartTLS.
  const failed = isConnectionFailure(error) ? 'connect' : step;
  const { reason, retryable } = describe(error, failed, settings.bindDn, base);
  const message = scrub(`LDAP ${failed} at ${where} failed: ${reason}`, settings.bindPassword);
  // Refused credentials are not an outage: the input shows as refused until they are fixed.
  const code = error instanceof InvalidCredentialsError ? 'source_unauthorized' : 'source_unavailable';
  return new BridgeError(code, message, { retryable, cause: error });
}

function describe(error: unknown, step: LdapStep, bindDn: string, base: string | undefined) {
  if (error instanceof InvalidCredentialsError) {
    return { reason: `the server refused the credentials of ${JSON.stringify(bindDn)}`, retryable: false };
  }
  if (error instanceof NoSuchObjectError && base !== undefined) {
    return { reason: `the base DN ${JSON.stringify(base)} does not exist`, retryable: false };
  }
  if (error instanceof ResultCodeError) {
    // busy (51), unavailable (52), time limit exceeded (3): the server may do better later.
    return { reason: resultText(error), retryable: [3, 51, 52].includes(error.code) };
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  const text = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO|TLS/.test(code)) {
    return {
      reason: `the server's certificate was not accepted (${code}: ${text}); set directory.ldap.caFile to the CA that signed it`,
      retryable: false,
    };
  }
  const detail = typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
  return { reason: step === 'connect' ? `cannot connect (${detail})` : detail, retryable: true };
}

/** `SizeLimitExceededError` with diagnostic "x" → `size limit exceeded (LDAP result 4): x`. */
function resultText(error: ResultCodeError): string {
  const name = error.constructor.name
    .replace(/Error$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  const diagnostic = error.message.replace(/\s*Code: 0x[0-9a-f]+$/i, '').trim();
  return `${name} (LDAP result ${error.code})${diagnostic === '' ? '' : `: ${diagnostic}`}`;
}

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CONNECTION_ERRORS.has(code)) return true;
  return error instanceof Error && error.message === 'Connection timeout';
}

async function tlsSettings(settings: LdapConnectionSettings): Promise<ConnectionOptions> {
  const options: ConnectionOptions = { rejectUnauthorized: settings.rejectUnauthorized };
  if (settings.caFile === '') return options;
  try {
    return { ...options, ca: await readFile(settings.caFile, 'utf8') };
  } catch (error) {
    const reason = (error as { code?: string }).code ?? String(error);
    throw new BridgeError(
      'source_unavailable',
      `Cannot read directory.ldap.caFile ${settings.caFile}: ${reason}`,
      {
        retryable: false,
        cause: error,
      },
    );
  }
}

/** SNI takes host names only (RFC 6066 §3); an IP address is checked against the certificate's IP SANs. */
function serverName(host: string): { servername?: string } {
  return isIP(host) === 0 ? { servername: host } : {};
}

/** The server for messages: scheme, host and port, never credentials in the URL. */
export function serverLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the LDAP server';
  }
}

function scrub(text: string, secret: string): string {
  return secret.length >= 4 ? text.split(secret).join('***') : text;
}
