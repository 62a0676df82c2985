import { constants, sign, type KeyObject } from 'node:crypto';

/**
 * A JWT signed as a JWS in compact serialisation (RFC 7519 §3, RFC 7515 §7.1):
 * base64url(header) . base64url(claims) . base64url(signature), with node:crypto. RS256 is
 * RSASSA-PKCS1-v1_5 with SHA-256; PS256 is RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a salt
 * as long as the hash, 32 bytes (RFC 7518 §3.3, §3.5).
 */
export type JwtAlgorithm = 'RS256' | 'PS256';

export function signJwt(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key: KeyObject,
  algorithm: JwtAlgorithm,
): string {
  const input = `${encode({ ...header, alg: algorithm })}.${encode(claims)}`;
  const signer =
    algorithm === 'PS256' ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } : key;
  return `${input}.${sign('sha256', Buffer.from(input), signer).toString('base64url')}`;
}

function encode(part: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(part)).toString('base64url');
}
