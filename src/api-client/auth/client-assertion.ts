import { createHash, createPrivateKey, randomUUID, X509Certificate, type KeyObject } from 'node:crypto';
import { BridgeError } from '../../domain/errors.js';
import { signJwt, type JwtAlgorithm } from './jwt.js';

/**
 * A client assertion (RFC 7523 §2.2, §3; OpenID Connect `private_key_jwt`): a JWT the client signs
 * with the private key of a certificate registered for it, in place of a client secret. Claims:
 * `iss` = `sub` = the client id, `aud` = the token URL, a fresh `jti`, `iat`/`nbf` now and `exp` a
 * few minutes on. The header names the certificate by its thumbprint, as Microsoft's identity
 * platform asks (learn.microsoft.com, "Certificate credentials"): PS256 with `x5t#S256` (SHA-256 of
 * the certificate's DER, RFC 7515 §4.1.8), or RS256 with `x5t` (SHA-1, §4.1.7).
 */

export interface ClientAssertionOptions {
  clientId: string;
  /** The token URL, the assertion's audience. */
  audience: string;
  /** The certificate, PEM. */
  certificate: string;
  /** Its private key, PEM (PKCS#8 or PKCS#1). */
  privateKey: string;
  algorithm?: JwtAlgorithm;
  now?: () => number;
}

/** Minutes an assertion is valid (Microsoft: 5 to 10 after `nbf`). */
const LIFETIME_S = 10 * 60;

export function clientAssertion(options: ClientAssertionOptions): string {
  const { certificate, key } = readCertificate(options.certificate, options.privateKey);
  const algorithm = options.algorithm ?? 'PS256';
  const der = certificate.raw;
  const thumbprint =
    algorithm === 'PS256'
      ? { 'x5t#S256': createHash('sha256').update(der).digest('base64url') }
      : { x5t: createHash('sha1').update(der).digest('base64url') };
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const claims = {
    aud: options.audience,
    iss: options.clientId,
    sub: options.clientId,
    jti: randomUUID(),
    iat: now,
    nbf: now,
    exp: now + LIFETIME_S,
  };
  return signJwt({ typ: 'JWT', ...thumbprint }, claims, key, algorithm);
}

/** The certificate and its key, checked to belong together; errors never quote either. */
function readCertificate(
  certificatePem: string,
  keyPem: string,
): { certificate: X509Certificate; key: KeyObject } {
  let certificate: X509Certificate;
  let key: KeyObject;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch (error) {
    throw new BridgeError('config_invalid', 'The client certificate is not a PEM X.509 certificate', {
      cause: error,
    });
  }
  try {
    key = createPrivateKey(keyPem);
  } catch (error) {
    throw new BridgeError('config_invalid', "The client certificate's private key cannot be read", {
      cause: error,
    });
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new BridgeError('config_invalid', 'The private key does not belong to the client certificate');
  }
  return { certificate, key };
}
