import { constants, verify } from 'node:crypto';
import type { AppRegistration, ClientCertificate } from './entra-apps.js';
import type { OAuthError } from './entra-replies.js';

/**
 * Checks a certificate credential's client assertion as certificate-credentials.md describes it:
 * a JWT whose header names `alg` PS256 with `x5t#S256` (the SHA-256 thumbprint) — or, as older
 * versions of that page and many clients do, RS256 with `x5t` (SHA-1) — signed by the private key
 * of a certificate registered on the app; claims `aud` = the token endpoint's URL, `iss` = `sub` =
 * the client id, `jti`, `nbf` and `exp` bounding a short validity.
 */

export type Refusal = { status: number; error: OAuthError; code: number; message: string };

export interface AssertionContext {
  app: AppRegistration;
  /** The token endpoint URLs the assertion may name as its audience (by tenant id or domain). */
  audiences: string[];
  nowSeconds: number;
  /** Longest accepted exp − nbf; the page asks for "5-10 minutes after nbf at most". */
  maxLifetimeSeconds: number;
}

/** Tolerated clock skew between the client and the token service. */
const SKEW = 300;

export function checkAssertion(jwt: string, context: AssertionContext): Refusal | undefined {
  const parts = jwt.split('.');
  const header = parts.length === 3 ? decode(parts[0] as string) : undefined;
  const claims = parts.length === 3 ? decode(parts[1] as string) : undefined;
  if (!header || !claims) return invalid(50027, 'JWT token is invalid or malformed.');
  if (header.alg !== 'PS256' && header.alg !== 'RS256') {
    return invalid(
      50027,
      `JWT token is invalid: the signing algorithm '${String(header.alg)}' is not supported.`,
    );
  }
  const certificate = certificateOf(header, context.app);
  if ('code' in certificate) return certificate;
  if (certificate.expiresAt <= context.nowSeconds * 1000) {
    return invalid(
      700027,
      'The certificate with identifier used to sign the client assertion is expired on application.',
    );
  }
  if (!signed(parts, header.alg, certificate)) {
    return invalid(700027, 'Client assertion failed signature validation.');
  }
  return checkClaims(claims, context);
}

function checkClaims(claims: Record<string, unknown>, context: AssertionContext): Refusal | undefined {
  const { clientId } = context.app;
  if (claims.iss !== clientId || claims.sub !== clientId) {
    return invalid(700021, "Client assertion application identifier doesn't match 'client_id' parameter.");
  }
  if (typeof claims.aud !== 'string' || !context.audiences.includes(claims.aud)) {
    return invalid(
      50027,
      `JWT token is invalid: the audience '${String(claims.aud)}' is not this token endpoint (${context.audiences[0]}).`,
    );
  }
  if (typeof claims.jti !== 'string' || claims.jti === '') {
    return invalid(50027, "JWT token is invalid: it does not contain a 'jti' claim.");
  }
  const { exp, nbf } = claims;
  if (typeof exp !== 'number' || typeof nbf !== 'number') {
    return invalid(50027, "JWT token is invalid: the 'exp' and 'nbf' claims are required.");
  }
  const now = context.nowSeconds;
  if (exp <= now - SKEW || nbf > now + SKEW) {
    return invalid(
      700024,
      `Client assertion is not within its valid time range. Current time: ${iso(now)}, ` +
        `assertion valid from ${iso(nbf)} to ${iso(exp)}.`,
    );
  }
  if (exp - nbf > context.maxLifetimeSeconds) {
    return invalid(
      700024,
      `Client assertion is not within its valid time range: it is valid for ${exp - nbf} seconds, ` +
        `more than the ${context.maxLifetimeSeconds} this token endpoint accepts.`,
    );
  }
  return undefined;
}

function certificateOf(header: Record<string, unknown>, app: AppRegistration): ClientCertificate | Refusal {
  const s256 = header['x5t#S256'];
  const sha1 = header.x5t;
  const found = app.certificates.find(
    (c) => (typeof s256 === 'string' && c.x5tS256 === s256) || (typeof sha1 === 'string' && c.x5t === sha1),
  );
  if (found) return found;
  const named = typeof s256 === 'string' ? s256 : typeof sha1 === 'string' ? sha1 : '';
  const hex = Buffer.from(named, 'base64url').toString('hex').toUpperCase();
  return invalid(
    700027,
    'The certificate with identifier used to sign the client assertion is not registered on application. ' +
      `[Reason - The key was not found., Thumbprint of key used by client: '${hex}', ` +
      `Please visit the Azure Portal, Graph Explorer or directly use MS Graph to see configured keys for app Id '${app.clientId}'.]`,
  );
}

function signed(parts: string[], alg: string, certificate: ClientCertificate): boolean {
  const input = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2] as string, 'base64url');
  const key =
    alg === 'PS256'
      ? { key: certificate.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }
      : certificate.publicKey;
  try {
    return verify('sha256', input, key, signature);
  } catch {
    return false;
  }
}

function decode(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function invalid(code: number, message: string): Refusal {
  return { status: 401, error: 'invalid_client', code, message };
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
