import { randomBytes } from 'node:crypto';
import type { GraphPermission } from './entra-apps.js';
import type { EntraClock } from './entra-clock.js';

/**
 * Access tokens the token endpoint issued. They are opaque to clients (RFC 6749 §1.4), carry what
 * a real token's `tid` and `roles` claims would — the tenant, the app, the permissions consented
 * at issuance, so a permission granted later needs a new token — and expire on the emulation's
 * clock.
 */
export interface AccessToken {
  tenantId: string;
  clientId: string;
  roles: ReadonlySet<GraphPermission>;
  expiresAt: number;
}

export type Bearer = { token: AccessToken } | { problem: 'empty' | 'invalid' | 'expired' };

export class AccessTokens {
  private readonly issued = new Map<string, AccessToken>();
  /** `expires_in` of new tokens: Entra's usual 3599 seconds unless a test shortens it. */
  lifetimeSeconds = 3599;

  constructor(private readonly clock: EntraClock) {}

  issue(tenantId: string, clientId: string, roles: Iterable<GraphPermission>): string {
    const value = `ey${randomBytes(48).toString('base64url')}`;
    const expiresAt = this.clock.now() + this.lifetimeSeconds * 1000;
    this.issued.set(value, { tenantId, clientId, roles: new Set(roles), expiresAt });
    return value;
  }

  /** Reads an `Authorization` header. */
  check(header: string | undefined): Bearer {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match?.[1]) return { problem: 'empty' };
    const token = this.issued.get(match[1]);
    if (!token) return { problem: 'invalid' };
    return token.expiresAt <= this.clock.now() ? { problem: 'expired' } : { token };
  }

  /** Every token issued so far stops working (a revocation, or a key roll-over on Microsoft's side). */
  revokeAll(clientId?: string): void {
    for (const [value, token] of this.issued) {
      if (clientId === undefined || token.clientId === clientId) this.issued.delete(value);
    }
  }
}
