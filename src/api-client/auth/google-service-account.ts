import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { BridgeError } from '../../domain/errors.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { VendorRules } from '../vendor-rules.js';
import type { AuthStrategy } from './auth-strategy.js';
import { signJwt } from './jwt.js';
import { TokenCache, tokenAuth } from './token-cache.js';
import { TokenEndpoint } from './token-endpoint.js';

/**
 * A Google service account with domain-wide delegation, as Google's Admin SDK is read (Google
 * Identity, "Using OAuth 2.0 for Server to Server Applications"; RFC 7523 §2.1): a JWT signed RS256
 * with the account's private key — `iss` its `client_email`, `scope` the scopes space-separated,
 * `aud` its `token_uri`, `iat` now, `exp` an hour on, `sub` the admin it acts for — is POSTed to
 * the token URI with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`. The JSON key file is
 * read at each refresh (a rotated key applies without a restart); the token is cached as
 * token-cache.ts says. The key's `private_key_id` names the key (`kid`).
 */

export interface GoogleServiceAccountOptions {
  /** The service account's JSON key file, its content. */
  key: () => string;
  scopes: readonly string[];
  /** The admin the service account acts for (the assertion's `sub`). */
  subject: string;
  input: string;
  metrics?: ApiMetrics;
  timeoutMs?: number;
  refreshMarginMs?: number;
  explainRefusal?: VendorRules['explainRefusal'];
  now?: () => number;
}

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const ASSERTION_LIFETIME_S = 3600;

const serviceAccountKey = z.object({
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z.url().optional(),
});

export function googleServiceAccountAuth(options: GoogleServiceAccountOptions): AuthStrategy {
  const now = options.now ?? Date.now;
  let endpoint: { uri: string; client: TokenEndpoint } | undefined;
  const endpointFor = (uri: string): TokenEndpoint => {
    if (endpoint?.uri === uri) return endpoint.client;
    void endpoint?.client.close();
    endpoint = { uri, client: new TokenEndpoint({ ...endpointOptions(options), tokenUrl: uri }) };
    return endpoint.client;
  };
  const issue = () => {
    const key = readKey(options.key());
    const tokenUri = key.token_uri ?? GOOGLE_TOKEN_URI;
    const iat = Math.floor(now() / 1000);
    const claims = {
      iss: key.client_email,
      scope: options.scopes.join(' '),
      aud: tokenUri,
      iat,
      exp: iat + ASSERTION_LIFETIME_S,
      sub: options.subject,
    };
    const header = { typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
    const assertion = signJwt(header, claims, privateKey(key.private_key), 'RS256');
    return endpointFor(tokenUri).issue({ grant_type: JWT_BEARER_GRANT, assertion });
  };
  const cache = new TokenCache(issue, options.key, {
    now,
    ...(options.refreshMarginMs === undefined ? {} : { refreshMarginMs: options.refreshMarginMs }),
  });
  return tokenAuth(cache, async () => endpoint?.client.close());
}

function endpointOptions(options: GoogleServiceAccountOptions) {
  return {
    input: options.input,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.explainRefusal ? { explainRefusal: options.explainRefusal } : {}),
  };
}

/** The key file's fields; a problem is named by the field, never by its value. */
function readKey(text: string): z.output<typeof serviceAccountKey> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BridgeError('config_invalid', 'The Google service account key is not JSON');
  }
  const parsed = serviceAccountKey.safeParse(json);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))].join(', ');
  throw new BridgeError('config_invalid', `The Google service account key lacks or mistypes: ${fields}`);
}

function privateKey(pem: string) {
  try {
    return createPrivateKey(pem);
  } catch (error) {
    throw new BridgeError('config_invalid', "The Google service account key's private_key cannot be read", {
      cause: error,
    });
  }
}
