import { createHash, randomBytes, timingSafeEqual, X509Certificate, type KeyObject } from 'node:crypto';
import type { EntraClock } from './entra-clock.js';
import { newGuid } from './entra-ids.js';

/**
 * App registrations of a tenant: client id, the Microsoft Graph application permissions an admin
 * consented to, and the credentials — client secrets (with an expiry) and certificates (their
 * SHA-1 and SHA-256 thumbprints, as the `x5t` / `x5t#S256` headers of a client assertion name
 * them; certificate-credentials.md).
 */

export const GRAPH_PERMISSIONS = [
  'User.Read.All',
  'User.ReadWrite.All',
  'Group.Read.All',
  'Group.ReadWrite.All',
  'GroupMember.Read.All',
  'GroupMember.ReadWrite.All',
  'Directory.Read.All',
  'Directory.ReadWrite.All',
  'Application.Read.All',
  'Application.ReadWrite.All',
  'Device.Read.All',
  'OrgContact.Read.All',
] as const;

export type GraphPermission = (typeof GRAPH_PERMISSIONS)[number];

export interface ClientSecret {
  keyId: string;
  value: string;
  expiresAt: number;
}

export interface ClientCertificate {
  keyId: string;
  /** Hex SHA-1 thumbprint, upper case, as the portal shows it. */
  thumbprint: string;
  x5t: string;
  x5tS256: string;
  publicKey: KeyObject;
  expiresAt: number;
}

export interface AppRegistration {
  clientId: string;
  displayName: string;
  permissions: Set<GraphPermission>;
  secrets: ClientSecret[];
  certificates: ClientCertificate[];
}

const DAY = 86_400_000;

export class AppRegistry {
  private readonly apps = new Map<string, AppRegistration>();

  constructor(private readonly clock: EntraClock) {}

  create(options: { displayName?: string; permissions?: GraphPermission[]; clientId?: string } = {}) {
    const clientId = options.clientId ?? newGuid();
    if (this.apps.has(clientId)) throw new Error(`an app ${clientId} is already registered`);
    const app: AppRegistration = {
      clientId,
      displayName: options.displayName ?? `app ${clientId.slice(0, 8)}`,
      permissions: new Set(),
      secrets: [],
      certificates: [],
    };
    this.apps.set(clientId, app);
    this.grant(clientId, options.permissions ?? []);
    return app;
  }

  find(clientId: string): AppRegistration | undefined {
    return this.apps.get(clientId);
  }

  get(clientId: string): AppRegistration {
    const app = this.apps.get(clientId);
    if (!app) throw new Error(`no app ${clientId} is registered in the emulated tenant`);
    return app;
  }

  grant(clientId: string, permissions: GraphPermission[]): void {
    const app = this.get(clientId);
    for (const permission of permissions) {
      if (!(GRAPH_PERMISSIONS as readonly string[]).includes(permission)) {
        throw new Error(`${permission} is not an application permission the emulation knows`);
      }
      app.permissions.add(permission);
    }
  }

  revoke(clientId: string, permissions: GraphPermission[]): void {
    const app = this.get(clientId);
    for (const permission of permissions) app.permissions.delete(permission);
  }

  /** A secret like the portal's: `abc8Q~` and 34 more characters; its id is a GUID. */
  addSecret(clientId: string, lifetimeMs = 180 * DAY): ClientSecret {
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.';
    const pick = (n: number) => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('');
    const secret = {
      keyId: newGuid(),
      value: `${pick(3)}8Q~${pick(34)}`,
      expiresAt: this.clock.now() + lifetimeMs,
    };
    this.get(clientId).secrets.push(secret);
    return secret;
  }

  /** Ends a secret's validity now (every secret of the app when no key id is given). */
  expireSecret(clientId: string, keyId?: string): void {
    const secrets = this.get(clientId).secrets.filter((s) => keyId === undefined || s.keyId === keyId);
    if (secrets.length === 0) throw new Error(`app ${clientId} has no secret ${keyId ?? ''}`);
    for (const secret of secrets) secret.expiresAt = this.clock.now() - 1;
  }

  /** The secret whose value was sent, compared in constant time. */
  matchSecret(app: AppRegistration, value: string): ClientSecret | undefined {
    const sent = Buffer.from(value);
    return app.secrets.find((s) => {
      const known = Buffer.from(s.value);
      return known.length === sent.length && timingSafeEqual(known, sent);
    });
  }

  /** Registers a certificate (PEM); it expires at its own notAfter unless told earlier. */
  addCertificate(clientId: string, certificatePem: string, expiresAt?: number): ClientCertificate {
    const certificate = new X509Certificate(certificatePem);
    const digest = (algorithm: string) => createHash(algorithm).update(certificate.raw).digest();
    const record: ClientCertificate = {
      keyId: newGuid(),
      thumbprint: digest('sha1').toString('hex').toUpperCase(),
      x5t: digest('sha1').toString('base64url'),
      x5tS256: digest('sha256').toString('base64url'),
      publicKey: certificate.publicKey,
      expiresAt: expiresAt ?? Date.parse(certificate.validTo),
    };
    this.get(clientId).certificates.push(record);
    return record;
  }

  expireCertificate(clientId: string, keyId?: string): void {
    const certificates = this.get(clientId).certificates.filter(
      (c) => keyId === undefined || c.keyId === keyId,
    );
    if (certificates.length === 0) throw new Error(`app ${clientId} has no certificate ${keyId ?? ''}`);
    for (const certificate of certificates) certificate.expiresAt = this.clock.now() - 1;
  }
}
