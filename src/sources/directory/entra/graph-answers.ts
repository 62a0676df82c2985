import type { Answer } from '../../../api-client/answer.js';
import type { Refusal, VendorRules } from '../../../api-client/vendor-rules.js';
import { BridgeError, isBridgeError } from '../../../domain/errors.js';

/**
 * How Microsoft's sign-in and Graph say what went wrong, in plain words for an operator.
 *
 * Sign-in refusals carry an AADSTS code (learn.microsoft.com/entra/identity-platform/
 * reference-error-codes): the usual mistakes of an app registration each get a sentence saying
 * what to fix. Graph's errors are `{"error": {"code", "message"}}` (graph/errors): `code` is what a
 * client branches on (`syncStateNotFound`, `Authorization_RequestDenied`), so the detail keeps it.
 */

const SIGN_IN: ReadonlyMap<number, string> = new Map([
  [
    7000215,
    "the client secret is wrong — often the secret's ID was pasted instead of its value (the Value " +
      'column, shown once when the secret is created)',
  ],
  [7000222, 'the client secret has expired: add a new one under Certificates & secrets and configure it'],
  [
    700016,
    'the tenant has no application with this client id: check ENTRA_CLIENT_ID (the Application ' +
      '(client) ID) and ENTRA_TENANT_ID, and that the app is registered or consented in this tenant',
  ],
  [
    90002,
    'the tenant was not found: check ENTRA_TENANT_ID (the Directory (tenant) ID) and, for a ' +
      'national cloud, ENTRA_AUTHORITY_HOST',
  ],
  [900023, 'ENTRA_TENANT_ID is not a tenant id or domain the sign-in service knows'],
  [
    700027,
    'the certificate is not registered for the app (or has expired): upload its public part under ' +
      'Certificates & secrets of the app registration',
  ],
  [7000218, 'no credential reached the sign-in service: configure a client secret or a certificate'],
  [700024, "the client assertion's time is off: check the clock of the bridge's host"],
]);

/** Plain words for a sign-in refusal's AADSTS code, when it is one of the usual mistakes. */
export function signInWords(detail: string | undefined): string | undefined {
  const code = /AADSTS(\d+)/.exec(detail ?? '')?.[1];
  return code === undefined ? undefined : SIGN_IN.get(Number(code));
}

/** Graph's refusals that are not a sign-in's: a token Graph does not take, a missing permission. */
function explainRefusal(refusal: Refusal): string | undefined {
  const words = signInWords(refusal.detail);
  if (words !== undefined) return words;
  if (refusal.status === 403)
    return 'the app registration lacks an application permission this read needs (granted with admin consent)';
  if (refusal.status === 401)
    return (
      'Microsoft Graph did not take the access token: check that ENTRA_GRAPH_URL and ' +
      'ENTRA_AUTHORITY_HOST belong to the same cloud'
    );
  return undefined;
}

export const graphAnswers: VendorRules = {
  detail: graphDetail,
  explainRefusal,
};

export const signInRules: Pick<VendorRules, 'explainRefusal'> = { explainRefusal };

/** `code: message` of Graph's error body; else the OAuth error's words (sign-in answers). */
function graphDetail(answer: Answer): string | undefined {
  const error = (answer.body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const text = [code, message].filter((v) => typeof v === 'string' && v !== '').join(': ');
    if (text !== '') return text.replace(/\s+/g, ' ').slice(0, 300);
  }
  return answer.isJson ? undefined : answer.text.trim().slice(0, 200) || undefined;
}

/** Graph's error code in a BridgeError's detail (`syncStateNotFound: …`). */
export function graphCode(error: unknown): string | undefined {
  if (!isBridgeError(error)) return undefined;
  return /^([A-Za-z_]+):/.exec(error.detail ?? '')?.[1];
}

/**
 * A refusal in words that name what to fix: a 403 names the permission the read needs; a sign-in
 * refusal Microsoft describes only by its code (an unknown tenant is a 400, not a refused
 * credential) gets its sentence. Other errors pass unchanged.
 */
export function plainRefusal(error: unknown, permission?: string): unknown {
  if (!isBridgeError(error)) return error;
  if (permission !== undefined && error.code === 'source_unauthorized' && error.status === 403) {
    const message =
      `Microsoft Graph refused the read (403): the app registration lacks the application ` +
      `permission ${permission} (or its admin consent)`;
    return new BridgeError('source_unauthorized', message, {
      status: 403,
      ...(error.detail === undefined ? {} : { detail: error.detail }),
      cause: error,
    });
  }
  const words = error.code === 'source_unauthorized' ? undefined : signInWords(error.detail);
  if (words === undefined) return error;
  return new BridgeError(error.code, `Entra ID refused the sign-in: ${words}`, {
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    cause: error,
  });
}
