/**
 * Redaction of anything secret-looking in what the bridge shows: the admin API's views and the
 * unauthenticated /readyz use this one function, so they hide the same things. History entries and
 * health details hold no secrets by construction; this is the defence in depth (a platform's error
 * text, a SCIM `detail` or a future field must never leak a token).
 */

const SECRET_FIELD =
  /password|passwd|secret|token|authori[sz]ation|cookie|credential|api[-_]?key|private[-_]?key/i;
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic|SSWS)\s+[^\s",;]+/gi, '$1 [redacted]'],
  [/(\/\/)[^/@\s:]+:[^/@\s]+@/g, '$1[redacted]@'],
  [/([?&](?:access_token|token|api_key|apikey|secret|password)=)[^&\s"]+/gi, '$1[redacted]'],
];
export const REDACTED = '[redacted]';

/** A deep copy with secret-looking fields and text replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_FIELD.test(key) && item !== null && item !== undefined ? REDACTED : redact(item, depth + 1),
    ]),
  );
}

export function redactText(text: string): string {
  return SECRET_TEXT.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}
