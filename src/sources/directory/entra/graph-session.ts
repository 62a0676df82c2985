import { ApiClient, type RequestOptions } from '../../../api-client/api-client.js';
import type { ApiMetrics } from '../../../api-client/api-metrics.js';
import type { AuthStrategy } from '../../../api-client/auth/auth-strategy.js';
import { clientCredentialsAuth, type ClientCredential } from '../../../api-client/auth/client-credentials.js';
import { nextLinkPages, type NextLinkPage } from '../../../api-client/paging/next-link-pages.js';
import type { RetryPolicy } from '../../../api-client/retry-policy.js';
import { graphAnswers, plainRefusal, signInRules } from './graph-answers.js';

/**
 * One read's connection to Microsoft Graph v1.0 (SPEC §5.5): at most `concurrency` requests in
 * flight, next and delta links followed only on Graph's origin, each read with its own connections
 * (closed at its end). The sign-in is the source's, shared by its reads: app-only client
 * credentials at `{authorityHost}/{tenant}/oauth2/v2.0/token` for the scope `{graphUrl}/.default`
 * (v2-oauth2-client-creds-grant-flow), the token cached and refreshed ahead of expiry and once on
 * a 401 (api-client/auth) — about one token an hour, not one per delta read — and taken anew when
 * the secret or certificate changes.
 *
 * Throttling (graph/throttling, throttling-limits): 429, 503 and 504 are waited out — `Retry-After`
 * when given, else a back-off — for up to half an hour of waits per request, so that a tenant's
 * resource-unit budget, shared with every other app it runs, slows a read and never fails it.
 */

export interface SignInOptions {
  tenantId: string;
  clientId: string;
  credential: ClientCredential;
  authorityHost: string;
  graphUrl: string;
  timeoutMs: number;
  /** The input its requests are counted under. */
  input: string;
  metrics?: ApiMetrics;
}

export interface GraphSessionOptions {
  signIn: AuthStrategy;
  graphUrl: string;
  concurrency: number;
  timeoutMs: number;
  input: string;
  metrics?: ApiMetrics;
}

/** The source's sign-in: one token cache for all its reads. */
export function graphSignIn(options: SignInOptions): AuthStrategy {
  const authority = new URL(options.authorityHost).origin;
  return clientCredentialsAuth({
    tokenUrl: `${authority}/${encodeURIComponent(options.tenantId)}/oauth2/v2.0/token`,
    clientId: options.clientId,
    scope: `${new URL(options.graphUrl).origin}/.default`,
    credential: options.credential,
    input: options.input,
    timeoutMs: options.timeoutMs,
    ...signInRules,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
}

export const GRAPH_RETRY: Partial<RetryPolicy> = {
  throttleWaits: 100,
  maxTotalWaitMs: 30 * 60_000,
  // Microsoft's Graph SDKs wait 3 s when a 429 says nothing (RetryHandler's default delay).
  defaultThrottleWaitMs: 3_000,
  maxAttempts: 8,
};

export type RequestGate = Pick<RequestOptions, 'signal'>;

export class GraphSession {
  private readonly client: ApiClient;
  private readonly auth: AuthStrategy;

  constructor(options: GraphSessionOptions) {
    const origin = new URL(options.graphUrl).origin;
    this.auth = options.signIn;
    // The sign-in outlives the read: closing the read's client leaves it open.
    const auth: AuthStrategy = {
      authorization: (signal) => this.auth.authorization(signal),
      refused: (given) => this.auth.refused(given),
    };
    this.client = new ApiClient({
      label: `Microsoft Graph at ${origin}`,
      input: options.input,
      baseUrl: `${origin}/v1.0/`,
      auth,
      connections: options.concurrency,
      timeoutMs: options.timeoutMs,
      retry: GRAPH_RETRY,
      vendor: graphAnswers,
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
  }

  /** Signs in (a token, from the cache or the token endpoint); throws the refusal in plain words. */
  async signIn(gate: RequestGate = {}): Promise<void> {
    try {
      await this.auth.authorization(gate.signal);
    } catch (error) {
      throw plainRefusal(error);
    }
  }

  /** GETs a Graph object or page; `permission` names what a 403 lacks. */
  async get(path: string, permission: string, gate: RequestGate = {}): Promise<Record<string, unknown>> {
    try {
      return bodyOf((await this.client.getJson(path, gate)).body);
    } catch (error) {
      throw plainRefusal(error, permission);
    }
  }

  /** GETs a Graph object; undefined when Graph answers 404 (no such object, or deleted). */
  async find(
    path: string,
    permission: string,
    gate: RequestGate = {},
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const answer = await this.client.findJson(path, gate);
      return answer === undefined ? undefined : bodyOf(answer.body);
    } catch (error) {
      throw plainRefusal(error, permission);
    }
  }

  /** The pages of a list or a delta round: `@odata.nextLink` followed, the last page's delta link. */
  async *pages(first: string, permission: string, gate: RequestGate = {}): AsyncGenerator<NextLinkPage> {
    try {
      yield* nextLinkPages(this.client, first, gate);
    } catch (error) {
      throw plainRefusal(error, permission);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function bodyOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}
