import { BridgeError } from '../domain/errors.js';
import { capitalized } from './api-errors.js';

/**
 * Every request of a client goes to the origin it was configured with (RFC 6454: scheme, host,
 * port): a next link or a URL elsewhere is refused, so that the credential sent with each request
 * never leaves it. A path is joined to the base URL's path (`api/v1/users` under
 * `https://acme.okta.com/`); a link an answer gives is resolved against the URL of that answer
 * (RFC 3986 §5, RFC 8288 §3.2) and then held to the same origin.
 */

/** The base URL, its path ending in `/` so that paths join under it. */
export function baseUrl(url: string): URL {
  const base = new URL(url);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new BridgeError('config_invalid', `Not an HTTP(S) URL: ${base.protocol}//${base.host}`);
  }
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  base.search = '';
  base.hash = '';
  return base;
}

/** A path under the base (leading slashes ignored), or an absolute URL that must be on its origin. */
export function urlOnOrigin(base: URL, pathOrUrl: string | URL, label: string): URL {
  const url =
    pathOrUrl instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl)
      ? new URL(pathOrUrl)
      : new URL(pathOrUrl.replace(/^\/+/, ''), base);
  return onOrigin(url, base, label);
}

/** A link from an answer, resolved against the answer's URL and held to the base's origin. */
export function linkOnOrigin(link: string, answerUrl: URL, base: URL, label: string): URL {
  return onOrigin(new URL(link, answerUrl), base, label);
}

function onOrigin(url: URL, base: URL, label: string): URL {
  if (url.origin === base.origin) return url;
  throw new BridgeError(
    'source_invalid',
    `${capitalized(label)} gave a URL on another origin (${url.origin}): not followed, the credential stays with ${base.origin}`,
  );
}
