import type { ApiMetrics } from '../api-metrics.js';
import type { VendorRules } from '../vendor-rules.js';
import type { AuthStrategy } from './auth-strategy.js';
import { clientAssertion } from './client-assertion.js';
import type { JwtAlgorithm } from './jwt.js';
import { TokenCache, tokenAuth } from './token-cache.js';
import { TokenEndpoint } from './token-endpoint.js';

/**
 * OAuth2 client credentials (RFC 6749 §4.4), as Microsoft Graph is read: a form POSTed to the token
 * URL with `grant_type=client_credentials`, the client id and `scope` (Graph:
 * `https://graph.microsoft.com/.default`), and the client authenticated by a secret in the body
 * (`client_secret`, §2.3.1) or by a signed client assertion (RFC 7523 §2.2: `client_assertion_type`
 * `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, client-assertion.ts). The token is
 * cached, refreshed ahead of expiry and once on a 401 (token-cache.ts). The credential is read at
 * each refresh, so a secret or certificate re-read from its file applies without a restart.
 */

export type ClientCredential =
  | { secret: () => string }
  | { certificate: () => string; privateKey: () => string; algorithm?: JwtAlgorithm };

export interface ClientCredentialsOptions {
  tokenUrl: string;
  clientId: string;
  /** Space-separated scopes (RFC 6749 §3.3). */
  scope: string;
  credential: ClientCredential;
  input: string;
  metrics?: ApiMetrics;
  timeoutMs?: number;
  refreshMarginMs?: number;
  explainRefusal?: VendorRules['explainRefusal'];
  now?: () => number;
}

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export function clientCredentialsAuth(options: ClientCredentialsOptions): AuthStrategy {
  const { tokenUrl, clientId, scope, credential, now = Date.now } = options;
  const endpoint = new TokenEndpoint({
    tokenUrl,
    input: options.input,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.explainRefusal ? { explainRefusal: options.explainRefusal } : {}),
  });
  const form = (): Record<string, string> => {
    const grant = { grant_type: 'client_credentials', client_id: clientId, scope };
    if ('secret' in credential) return { ...grant, client_secret: credential.secret() };
    const assertion = clientAssertion({
      clientId,
      audience: tokenUrl,
      certificate: credential.certificate(),
      privateKey: credential.privateKey(),
      now,
      ...(credential.algorithm ? { algorithm: credential.algorithm } : {}),
    });
    return { ...grant, client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion };
  };
  const fingerprint = () =>
    'secret' in credential ? credential.secret() : `${credential.certificate()}\n${credential.privateKey()}`;
  const cache = new TokenCache(() => endpoint.issue(form()), fingerprint, {
    now,
    ...(options.refreshMarginMs === undefined ? {} : { refreshMarginMs: options.refreshMarginMs }),
  });
  return tokenAuth(cache, () => endpoint.close());
}
