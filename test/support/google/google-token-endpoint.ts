import { randomBytes } from 'node:crypto';
import type { GoogleClock } from './google-clock.js';
import { TOKEN_ERRORS, type Reply } from './google-errors.js';
import { decodeJwt, verifyRs256, type ServiceAccounts } from './google-service-accounts.js';

/**
 * Google's OAuth 2.0 token endpoint for the JWT bearer grant (RFC 7523; developers.google.com/
 * identity/protocols/oauth2/service-account, "Preparing to make an authorized API call" and "Error
 * codes"): a form with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and `assertion`, an
 * RS256 JWT whose header names the key (`kid` = `private_key_id`) and whose claims are `iss` (the
 * account's `client_email`), `scope` (space-separated), `aud` (the token URI), `iat` and `exp` (at
 * most an hour apart, not expired) and, for domain-wide delegation, `sub` (the user impersonated).
 *
 * Refusals, as Google words them: an unknown account → 400 invalid_grant "account not found"; a
 * key it does not hold or a bad signature → 400 invalid_grant "Invalid JWT Signature."; another
 * audience → 400 "Failed audience check"; a lifetime over an hour or an expired/future assertion →
 * 400 "Token must be a short-lived token (60 minutes)…"; no scope → 400 invalid_scope; a `sub`
 * with no delegation granted, or a scope not granted → 401 unauthorized_client; a `sub` that is
 * not an active user of the customer → 400 invalid_grant "Invalid email or User ID". Without
 * `sub` the account gets a token of its own, which the Admin APIs then refuse (403).
 */

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** What an access token stands for. */
export interface AccessGrant {
  token: string;
  clientEmail: string;
  projectId: string;
  /** The impersonated user's id and primary email; undefined for the account's own token. */
  subject?: { id: string; email: string };
  scopes: ReadonlySet<string>;
  expiresAt: number;
}

/** Clock skew Google tolerates on `iat` (a client's clock a little ahead). */
const SKEW_SECONDS = 300;

export class TokenEndpoint {
  /** Lifetime of the access tokens issued, in seconds (Google: one hour). */
  lifetimeSeconds = 3600;
  private readonly grants = new Map<string, AccessGrant>();

  constructor(
    private readonly accounts: ServiceAccounts,
    private readonly clock: GoogleClock,
    /** Audiences accepted: the emulator's token URI and Google's own. */
    private readonly audiences: readonly string[],
    /** The active user a `sub` names (primary email or alias), if any. */
    private readonly subjectOf: (email: string) => { id: string; email: string } | undefined,
  ) {}

  exchange(form: URLSearchParams): Reply {
    const grantType = form.get('grant_type') ?? '';
    if (grantType !== JWT_BEARER) return TOKEN_ERRORS.badGrantType(grantType);
    const assertion = form.get('assertion');
    if (!assertion) return TOKEN_ERRORS.missing('assertion');
    const checked = this.check(assertion);
    if ('status' in checked) return checked;
    const token = `ya29.${randomBytes(48).toString('base64url')}`;
    const expiresAt = this.clock.now() + this.lifetimeSeconds * 1000;
    this.grants.set(token, { token, ...checked, expiresAt });
    return {
      status: 200,
      body: { access_token: token, expires_in: this.lifetimeSeconds, token_type: 'Bearer' },
    };
  }

  /** The grant behind a token still valid now; undefined for one unknown or expired. */
  valid(token: string): AccessGrant | undefined {
    const grant = this.grants.get(token);
    return grant && grant.expiresAt > this.clock.now() ? grant : undefined;
  }

  /** Every access token issued so far expires now (the next API call answers 401). */
  expireAll(): void {
    this.grants.clear();
  }

  private check(assertion: string): Reply | Omit<AccessGrant, 'token' | 'expiresAt'> {
    const jwt = decodeJwt(assertion);
    if (!jwt || jwt.header.alg !== 'RS256') return TOKEN_ERRORS.badSignature();
    const { claims } = jwt;
    const account = typeof claims.iss === 'string' ? this.accounts.find(claims.iss) : undefined;
    if (!account) return TOKEN_ERRORS.unknownAccount();
    const email = account.key.client_email;
    const kid = typeof jwt.header.kid === 'string' ? jwt.header.kid : account.key.private_key_id;
    const key = this.accounts.publicKey(email, kid);
    if (!key || !verifyRs256(jwt.signed, jwt.signature, key)) return TOKEN_ERRORS.badSignature();
    if (typeof claims.aud !== 'string' || !this.audiences.includes(claims.aud)) {
      return TOKEN_ERRORS.badAudience();
    }
    if (!timesAcceptable(claims.iat, claims.exp)) return TOKEN_ERRORS.badTimes();
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
    if (scopes.length === 0) return TOKEN_ERRORS.noScope();
    const base = { clientEmail: email, projectId: account.key.project_id, scopes: new Set(scopes) };
    if (claims.sub === undefined) return base;
    if (!account.delegated || typeof claims.sub !== 'string') return TOKEN_ERRORS.unauthorizedClient();
    const subject = this.subjectOf(claims.sub);
    if (!subject) return TOKEN_ERRORS.badSubject();
    const granted = account.delegated;
    if (!scopes.every((scope) => granted.has(scope))) return TOKEN_ERRORS.unauthorizedClient();
    return { ...base, subject };
  }
}

/** `iat`/`exp` in seconds, at most an hour apart, `exp` still ahead and `iat` not ahead of us. */
function timesAcceptable(iat: unknown, exp: unknown): boolean {
  if (typeof iat !== 'number' || typeof exp !== 'number') return false;
  const now = Date.now() / 1000;
  return exp > iat && exp - iat <= 3600 && exp > now && iat <= now + SKEW_SECONDS;
}
