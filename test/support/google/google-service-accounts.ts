import {
  createPublicKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  randomBytes,
  randomInt,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/**
 * Service accounts as Google Cloud issues them, and the domain-wide delegation an administrator
 * grants them (developers.google.com/identity/protocols/oauth2/service-account): a JSON key file
 * (`type`, `project_id`, `private_key_id`, `private_key` as PKCS#8 PEM, `client_email`, `client_id`,
 * `token_uri`), an RSA key pair whose public half Google keeps under `private_key_id`, and — in the
 * Admin console (Security › API controls › Domain-wide delegation) — the scopes the account's
 * numeric client ID may be granted when it impersonates a user of the domain.
 */

export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: 'googleapis.com';
}

interface Account {
  key: ServiceAccountKey;
  /** Public keys by key id; a deleted key is gone. */
  keys: Map<string, KeyObject>;
  /** Scopes granted for domain-wide delegation; undefined when none was granted. */
  delegated: Set<string> | undefined;
}

export class ServiceAccounts {
  private readonly byEmail = new Map<string, Account>();
  private keysMade = 0;

  constructor(private readonly tokenUri: string) {}

  /** A new account with one key; `delegatedScopes` undefined leaves delegation ungranted. */
  create(options: { projectId?: string; name?: string; delegatedScopes?: readonly string[] } = {}) {
    const projectId = options.projectId ?? 'scim-bridge-test';
    const name = options.name ?? `directory-reader-${randomBytes(3).toString('hex')}`;
    const clientEmail = `${name}@${projectId}.iam.gserviceaccount.com`;
    const clientId = String(randomInt(1, 10)) + digits(20);
    const account: Account = {
      key: undefined as unknown as ServiceAccountKey,
      keys: new Map(),
      delegated: options.delegatedScopes ? new Set(options.delegatedScopes) : undefined,
    };
    const { keyId, privateKey } = this.addKeyPair(account);
    account.key = {
      type: 'service_account',
      project_id: projectId,
      private_key_id: keyId,
      private_key: privateKey,
      client_email: clientEmail,
      client_id: clientId,
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: this.tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
      universe_domain: 'googleapis.com',
    };
    this.byEmail.set(clientEmail, account);
    return account.key;
  }

  /** A further key for an account (key rotation): the key file that carries it. */
  addKey(clientEmail: string): ServiceAccountKey {
    const account = this.account(clientEmail);
    const { keyId, privateKey } = this.addKeyPair(account);
    return { ...account.key, private_key_id: keyId, private_key: privateKey };
  }

  /** Deletes a key: assertions signed with it are refused from now on. */
  deleteKey(clientEmail: string, keyId: string): void {
    this.account(clientEmail).keys.delete(keyId);
  }

  /** What the administrator entered for the account's client ID (undefined: no delegation). */
  setDelegation(clientEmail: string, scopes: readonly string[] | undefined): void {
    this.account(clientEmail).delegated = scopes ? new Set(scopes) : undefined;
  }

  find(
    clientEmail: string,
  ): { key: ServiceAccountKey; delegated: ReadonlySet<string> | undefined } | undefined {
    const account = this.byEmail.get(clientEmail);
    return account && { key: account.key, delegated: account.delegated };
  }

  publicKey(clientEmail: string, keyId: string): KeyObject | undefined {
    return this.byEmail.get(clientEmail)?.keys.get(keyId);
  }

  private addKeyPair(account: Account): { keyId: string; privateKey: string } {
    const pair = keyPair(this.keysMade++);
    const keyId = randomBytes(20).toString('hex');
    account.keys.set(keyId, pair.publicKey);
    return { keyId, privateKey: pair.privateKey };
  }

  private account(clientEmail: string): Account {
    const account = this.byEmail.get(clientEmail);
    if (!account) throw new Error(`the emulation has no service account ${clientEmail}`);
    return account;
  }
}

/**
 * RSA key pairs, generated as needed and shared by the emulations of one process — the n-th key
 * of each emulation is the same pair — because a 2048-bit pair costs a good part of a second on a
 * busy machine. Within one emulation every key is distinct.
 */
const pairs: { publicKey: KeyObject; privateKey: string }[] = [];

function keyPair(index: number): { publicKey: KeyObject; privateKey: string } {
  while (pairs.length <= index) {
    const pair = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    pairs.push({ publicKey: createPublicKey(pair.publicKey), privateKey: pair.privateKey });
  }
  return pairs[index] as { publicKey: KeyObject; privateKey: string };
}

function digits(count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += String(randomInt(0, 10));
  return text;
}

/** A JWT's parts, decoded; undefined when it is not three base64url JSON parts. */
export function decodeJwt(
  assertion: string,
):
  | { header: Record<string, unknown>; claims: Record<string, unknown>; signed: string; signature: Buffer }
  | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  try {
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
    if (!isObject(header) || !isObject(claims)) return undefined;
    return { header, claims, signed: `${head}.${body}`, signature: Buffer.from(signature, 'base64url') };
  } catch {
    return undefined;
  }
}

export function verifyRs256(signed: string, signature: Buffer, key: KeyObject): boolean {
  return createVerify('RSA-SHA256').update(signed).verify(key, signature);
}

/**
 * Signs a JWT with RS256 (RFC 7515 §3.1 compact form): what a client does, offered to tests that
 * must craft assertions Google would refuse (a wrong key, a long lifetime, another audience).
 */
export function signJwt(claims: Record<string, unknown>, privateKeyPem: string, keyId?: string): string {
  const header = { alg: 'RS256', typ: 'JWT', ...(keyId === undefined ? {} : { kid: keyId }) };
  const encode = (part: unknown) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const signed = `${encode(header)}.${encode(claims)}`;
  const signature = createSign('RSA-SHA256').update(signed).sign(privateKeyPem).toString('base64url');
  return `${signed}.${signature}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
