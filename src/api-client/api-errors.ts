import { BridgeError } from '../domain/errors.js';
import { routeOf, type Answer } from './answer.js';
import { errorDetail, type AnswerKind, type VendorRules } from './vendor-rules.js';

/**
 * The one place where an answer of an API an input reads becomes a BridgeError. A refused
 * credential (401, 403) is `source_unauthorized`, never an outage; a throttled answer past the
 * policy's waits is `rate_limited` (side `source`) with the wait asked for; a server error or the
 * network after the retries is `source_unavailable` (retryable); anything else `source_invalid`.
 * The vendor's words go to `detail` (and the message); messages name the API and the route (the
 * path, never the query, a token, a secret or an assertion).
 */

/** An API as messages name it (a noun phrase: "Okta's API at https://acme.okta.com"). */
export interface ApiDescription {
  label: string;
  rules: VendorRules;
}

export function answerError(
  api: ApiDescription,
  method: string,
  answer: Answer,
  kind: AnswerKind,
  retryAfterMs?: number,
): BridgeError {
  const { status } = answer;
  const on = `${method} ${routeOf(answer.url)}`;
  const detail = (api.rules.detail ?? errorDetail)(answer);
  const options = { status, ...(detail === undefined ? {} : { detail }) };
  const wait = retryAfterMs === undefined ? {} : { retryAfterMs };
  const Api = capitalized(api.label);
  switch (kind) {
    case 'refused': {
      const plain = api.rules.explainRefusal?.({ ...options, ...oauthError(answer) });
      const message = `${Api} refused the credential (${status}) to ${on}${words(plain || detail)}`;
      return new BridgeError('source_unauthorized', message, options);
    }
    case 'throttled':
      return new BridgeError('rate_limited', `${Api} is rate-limiting ${on} (${status})${words(detail)}`, {
        ...options,
        ...wait,
        side: 'source',
      });
    case 'transient':
    case 'unavailable':
      return new BridgeError('source_unavailable', `${Api} answered ${status} to ${on}${words(detail)}`, {
        ...options,
        ...wait,
      });
    default:
      return new BridgeError('source_invalid', `${Api} answered ${status} to ${on}${words(detail)}`, options);
  }
}

/** A request that got no answer (refused connection, reset, timeout): `source_unavailable`. */
export function networkError(api: ApiDescription, method: string, url: URL, error: unknown): BridgeError {
  const reason = errorCode(error) ?? (error instanceof Error ? error.name : 'error');
  return new BridgeError(
    'source_unavailable',
    `Cannot reach ${api.label}: ${reason} (${method} ${routeOf(url)})`,
    { cause: error },
  );
}

/** A 2xx answer whose body is not the JSON asked for. */
export function notJsonError(api: ApiDescription, method: string, answer: Answer): BridgeError {
  const message = `${capitalized(api.label)} answered ${method} ${routeOf(answer.url)} with something other than JSON`;
  return new BridgeError('source_invalid', message, { status: answer.status });
}

/** The code of a network error: node's (`ECONNRESET`) or undici's (`UND_ERR_SOCKET`), or its cause's. */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

export function capitalized(label: string): string {
  return label.charAt(0).toUpperCase() + label.slice(1);
}

function words(text: string | undefined): string {
  return text === undefined ? '' : `: ${text}`;
}

function oauthError(answer: Answer): { oauthError?: string } {
  const body = answer.body as { error?: unknown } | undefined;
  return typeof body?.error === 'string' ? { oauthError: body.error } : {};
}
