import { z } from 'zod';
import { BridgeError } from '../../domain/errors.js';
import type { Answer } from '../answer.js';
import { ApiClient } from '../api-client.js';
import { capitalized } from '../api-errors.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { VendorRules } from '../vendor-rules.js';
import type { IssuedToken } from './token-cache.js';

/**
 * An OAuth2 token endpoint (RFC 6749 §3.2): a form POSTed, a token response back (§5.1). A token
 * request changes nothing, so it is retried on a 5xx or a network error like a read. An error
 * response (§5.2) that refuses the client or its grant (`invalid_client`, `invalid_grant`,
 * `unauthorized_client`, `access_denied`) is `source_unauthorized` with the endpoint's own words
 * (`error: error_description`, e.g. Entra's `AADSTS7000222: The provided client secret keys … are
 * expired`) in `detail`; another 400 (`invalid_scope`, `invalid_request`) is `source_invalid`.
 * Messages name the endpoint, never the form (it carries the secret or the assertion).
 */

export interface TokenEndpointOptions {
  tokenUrl: string;
  /** The input whose requests these are (metrics). */
  input: string;
  metrics?: ApiMetrics;
  timeoutMs?: number;
  /** The input's plain words for a refusal (see VendorRules). */
  explainRefusal?: VendorRules['explainRefusal'];
}

const REFUSING_ERRORS: ReadonlySet<string> = new Set([
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'access_denied',
]);

const tokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.coerce.number().positive().optional(),
});

/** A token response without `expires_in` (it is only RECOMMENDED) is taken to last an hour. */
const DEFAULT_LIFETIME_S = 3600;

export class TokenEndpoint {
  private readonly client: ApiClient;

  constructor(private readonly options: TokenEndpointOptions) {
    const url = new URL(options.tokenUrl);
    this.client = new ApiClient({
      label: `the token endpoint ${url.origin}${url.pathname}`,
      input: options.input,
      baseUrl: url.origin,
      connections: 1,
      vendor: oauthRules(options.explainRefusal),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  async issue(form: Record<string, string>, signal?: AbortSignal): Promise<IssuedToken> {
    const answer = await this.client.postForm(this.options.tokenUrl, form, {
      idempotent: true,
      ...(signal ? { signal } : {}),
    });
    const parsed = tokenResponse.safeParse(answer.body);
    if (!parsed.success || parsed.data.token_type.toLowerCase() !== 'bearer') {
      const message = `${capitalized(this.client.label)} answered without a Bearer access token`;
      throw new BridgeError('source_invalid', message, { status: answer.status });
    }
    const lifetime = parsed.data.expires_in ?? DEFAULT_LIFETIME_S;
    return { accessToken: parsed.data.access_token, expiresInMs: lifetime * 1000 };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function oauthRules(explainRefusal: VendorRules['explainRefusal']): VendorRules {
  return {
    classify: (answer: Answer) => {
      if (answer.status !== 400 && answer.status !== 401) return undefined;
      const error = (answer.body as { error?: unknown } | undefined)?.error;
      return typeof error === 'string' && REFUSING_ERRORS.has(error) ? 'refused' : undefined;
    },
    ...(explainRefusal ? { explainRefusal } : {}),
  };
}
