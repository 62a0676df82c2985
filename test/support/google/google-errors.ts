/**
 * The answers Google's servers give, as its documents and its users' reports show them.
 *
 * - The APIs (Directory, Reports) answer errors in the v1 "error" object: `{error: {code, message,
 *   errors: [{message, domain, reason, ...}], status?}}` (developers.google.com/workspace/admin/
 *   directory/v1/limits; troubleshoot-error-codes). Throttling uses `domain: "usageLimits"`.
 * - The token endpoint answers OAuth 2.0 errors (RFC 6749 §5.2) `{error, error_description}` with
 *   Google's descriptions (developers.google.com/identity/protocols/oauth2/service-account, "Error
 *   codes"; the texts as Google's clients report them).
 */

/** An answer of the emulation: status, JSON body, extra headers. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface ErrorItem {
  message: string;
  domain: string;
  reason: string;
  location?: string;
  locationType?: string;
}

export function apiError(code: number, message: string, item: Partial<ErrorItem>, extra = {}): Reply {
  const error = { message, domain: 'global', reason: 'invalid', ...item };
  return { status: code, body: { error: { code, message, errors: [error], ...extra } } };
}

/** No Authorization header: 401 "Login Required.". */
export function loginRequired(): Reply {
  const message = 'Login Required.';
  const item = { reason: 'required', location: 'Authorization', locationType: 'header' };
  return apiError(401, message, { message, ...item }, { status: 'UNAUTHENTICATED' });
}

/** An access token Google does not know, or one that expired. */
export function invalidCredentials(): Reply {
  const message =
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or ' +
    'other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
  const item = { message: 'Invalid Credentials', reason: 'authError', location: 'Authorization' };
  return apiError(401, message, { ...item, locationType: 'header' }, { status: 'UNAUTHENTICATED' });
}

/** A token without any scope the method accepts (the ErrorInfo names the method, as Google does). */
export function insufficientScopes(rpcMethod: string): Reply {
  const details = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      domain: 'googleapis.com',
      metadata: { service: 'admin.googleapis.com', method: rpcMethod },
    },
  ];
  const item = { message: 'Insufficient Permission', reason: 'insufficientPermissions' };
  const extra = { status: 'PERMISSION_DENIED', details };
  return apiError(403, 'Request had insufficient authentication scopes.', item, extra);
}

/** The caller is not an administrator (or no one was impersonated), or the resource is another's. */
export function notAuthorized(): Reply {
  const message = 'Not Authorized to access this resource/api';
  return apiError(403, message, { message, reason: 'forbidden' });
}

/** The Reports API's answer to a caller who may not read the audit log. */
export function reportsAccessDenied(): Reply {
  const message = 'Access denied. You are not authorized to read activity records.';
  const item = { message, reason: 'authError', location: 'Authorization', locationType: 'header' };
  return apiError(401, message, item);
}

export function badRequest(): Reply {
  return apiError(400, 'Bad Request', { message: 'Bad Request', reason: 'badRequest' });
}

/** `Invalid Input: <what>` (e.g. a malformed `query`, ssosync #148), or plain `Invalid Input`. */
export function invalidInput(what?: string): Reply {
  const message = what ? `Invalid Input: ${what}` : 'Invalid Input';
  return apiError(400, message, { message, reason: 'invalid' });
}

/** A parameter outside its documented range, as Google's front end words it. */
export function outOfRange(value: string, min: number, max: number): Reply {
  const message = `Invalid value '${value}'. Values must be within the range: [${min}, ${max}]`;
  return apiError(400, message, { message, reason: 'invalidParameter' });
}

/** A parameter whose value is not one of the allowed ones. */
export function invalidValue(parameter: string, value: string): Reply {
  const message = `Invalid value for ${parameter}: ${value}`;
  const item = { message, reason: 'invalidParameter', location: parameter, locationType: 'parameter' };
  return apiError(400, message, item);
}

/** `Resource Not Found: userKey` / `groupKey`. */
export function resourceNotFound(key: string): Reply {
  const message = `Resource Not Found: ${key}`;
  return apiError(404, message, { message, reason: 'notFound' });
}

export function domainNotFound(): Reply {
  return apiError(404, 'Domain not found.', { message: 'Domain not found.', reason: 'notFound' });
}

export function noSuchMethod(): Reply {
  return apiError(404, 'Not Found', { message: 'Not Found', reason: 'notFound' });
}

/** The Reports API's refusal of a time range (Azure-Sentinel #9617 shows the text). */
export function badTimeRange(): Reply {
  const message =
    'Invalid request: Start time and end time should be within last 180 days. Start time should be less than end time.';
  return apiError(400, message, { message, reason: 'invalid' });
}

/** The throttling and outage answers (Directory API limits page; troubleshoot-error-codes). */
export type ThrottleKind = 'userRateLimitExceeded' | 'quotaExceeded' | 'rateLimitExceeded' | 'backendError';

export function throttled(kind: ThrottleKind): Reply {
  switch (kind) {
    case 'userRateLimitExceeded':
      return usage(403, 'User Rate Limit Exceeded', kind);
    case 'quotaExceeded':
      return usage(403, 'Quota exceeded', kind);
    case 'rateLimitExceeded':
      return usage(429, 'Rate Limit Exceeded', kind);
    case 'backendError': {
      const message = 'Service unavailable. Please try again';
      return apiError(503, message, { message, reason: 'backendError' });
    }
  }
}

function usage(code: number, message: string, reason: string): Reply {
  return apiError(code, message, { message, domain: 'usageLimits', reason });
}

/** An OAuth 2.0 error of the token endpoint. */
export function oauthError(status: number, error: string, description?: string): Reply {
  return { status, body: description === undefined ? { error } : { error, error_description: description } };
}

export const TOKEN_ERRORS = {
  /** Delegation not granted to the client, or a scope not among those granted (401). */
  unauthorizedClient: () =>
    oauthError(
      401,
      'unauthorized_client',
      'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
    ),
  badSignature: () => oauthError(400, 'invalid_grant', 'Invalid JWT Signature.'),
  badTimes: () =>
    oauthError(
      400,
      'invalid_grant',
      'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    ),
  badAudience: () => oauthError(400, 'invalid_grant', 'Invalid JWT: Failed audience check.'),
  unknownAccount: () => oauthError(400, 'invalid_grant', 'Invalid grant: account not found'),
  badSubject: () => oauthError(400, 'invalid_grant', 'Invalid email or User ID'),
  noScope: () => oauthError(400, 'invalid_scope', 'Empty or missing scope not allowed.'),
  badGrantType: (given: string) => oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${given}`),
  missing: (name: string) => oauthError(400, 'invalid_request', `Missing required parameter: ${name}`),
} as const;
