import { isIP } from 'node:net';
import { z } from 'zod';
import { withJsonSchemaForm } from './json-schema-forms.js';

/**
 * The settings that tell the bridge how it is reached from outside: PUBLIC_URL and TRUST_PROXY.
 * Behind a TLS-terminating proxy or an ingress, the request the bridge sees is plain HTTP from the
 * proxy; these two say what the client saw (for `Secure` cookies, SCIM `meta.location` and
 * `Location`).
 */

/**
 * PUBLIC_URL: the bridge's public base URL, e.g. `https://bridge.example.com` (a path prefix is
 * kept: `https://example.com/bridge`); empty = taken from each request. Trailing slashes are dropped.
 */
export const publicUrlSchema = withJsonSchemaForm(
  z
    .string()
    .refine((v) => v === '' || isBaseUrl(v), 'not an http(s) base URL without query or fragment')
    .transform((v) => v.replace(/\/+$/, '')),
  { type: 'string', pattern: '^(https?://[^?#]+)?$' },
);

function isBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** express' `trust proxy` value: false (default), true (every hop), a hop count, or addresses. */
export type TrustProxy = boolean | number | string[];

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;

/**
 * TRUST_PROXY: whether `X-Forwarded-For` / `-Proto` / `-Host` are believed. `false` (default): never;
 * `true`: from any peer (only when nothing but the proxy can reach the bridge); a number: that many
 * proxies in front; a comma-separated list of proxy addresses or subnets (`10.0.0.0/8`, `::1`, or
 * express' names `loopback`, `linklocal`, `uniquelocal`): only from those.
 */
export const trustProxySchema = withJsonSchemaForm(
  z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]).transform((value, ctx): TrustProxy => {
    if (typeof value === 'boolean') return value;
    const text = (Array.isArray(value) ? value.join(',') : String(value)).trim();
    if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
    if (/^\d+$/.test(text) && Number(text) <= MAX_HOPS) return Number(text) === 0 ? false : Number(text);
    const entries = text
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (entries.length > 0 && entries.every(isProxyAddress)) return entries;
    ctx.addIssue({ code: 'custom', message: 'not true, false, a hop count or a list of proxy addresses' });
    return z.NEVER;
  }),
  {
    oneOf: [
      { type: 'boolean' },
      { type: 'integer', minimum: 0, maximum: MAX_HOPS },
      { type: 'string', minLength: 1 },
      { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    ],
  },
);

function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}
