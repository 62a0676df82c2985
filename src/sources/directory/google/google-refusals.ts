import { googleAnswers } from '../../../api-client/google-answers.js';
import type { Refusal, VendorRules } from '../../../api-client/vendor-rules.js';

/**
 * Google's refusals in plain words for an operator (check-config, status, the sync's error): what
 * the token endpoint's OAuth errors mean for a service account with domain-wide delegation
 * (developers.google.com/identity/protocols/oauth2/service-account, "Error codes"), and what the
 * Admin SDK's 401/403 mean for the administrator it acts for. The vendor's own words stay in the
 * error's detail.
 */

const DELEGATION =
  'Admin console › Security › Access and data control › API controls › Manage Domain Wide Delegation';

export function googleRules(scopes: readonly string[]): VendorRules {
  return { ...googleAnswers, explainRefusal: (refusal) => explainGoogleRefusal(refusal, scopes) };
}

export function explainGoogleRefusal(refusal: Refusal, scopes: readonly string[]): string | undefined {
  const detail = refusal.detail ?? '';
  if (refusal.oauthError === 'unauthorized_client')
    return `the service account is not granted domain-wide delegation of every scope asked (${scopes
      .map(shortScope)
      .join(', ')}): grant them to its client id in the ${DELEGATION} (it can take a while to apply)`;
  if (refusal.oauthError === 'invalid_grant') return invalidGrant(detail);
  if (/insufficient authentication scopes|insufficientPermissions/i.test(detail))
    return 'the access token lacks the scope this method needs: check the scopes granted to the service account';
  if (/not authorized to access this resource/i.test(detail))
    return 'the administrator the service account acts for (GOOGLE_ADMIN_SUBJECT) may not read users and groups: give it an admin role with those privileges';
  if (/not authorized to read activity records/i.test(detail))
    return 'the administrator the service account acts for may not read the audit log (the Reports privilege)';
  if (refusal.status === 401) return 'Google refused the access token';
  return undefined;
}

function invalidGrant(detail: string): string {
  if (/Invalid email or User ID/i.test(detail))
    return 'the administrator to act for (GOOGLE_ADMIN_SUBJECT) is not an active user of the account';
  if (/Invalid JWT Signature/i.test(detail))
    return "the key is not one of the service account's keys (deleted, or the file holds another account's)";
  if (/account not found/i.test(detail)) return 'the service account of the key does not exist (deleted?)';
  if (/short-lived token|iat and exp/i.test(detail))
    return "the bridge's clock is too far from Google's to sign a valid sign-in assertion";
  if (/audience/i.test(detail)) return "the key's token_uri is not Google's token endpoint";
  return 'Google refused the sign-in assertion';
}

/** `admin.directory.user.readonly` of https://www.googleapis.com/auth/admin.directory.user.readonly. */
export function shortScope(scope: string): string {
  return scope.slice(scope.lastIndexOf('/') + 1);
}
