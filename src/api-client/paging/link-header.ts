/**
 * The target of the first link with relation `rel` in `Link` headers (RFC 8288 §3):
 * `<https://…/users?after=x&limit=200>; rel="next"`. Several headers, or several links in one
 * (comma-separated), are read in order; a `rel` may hold several relation types, space-separated,
 * compared case-insensitively (§2.1.1). The target is returned as written (relative or not).
 */
export function linkTarget(value: string | string[] | undefined, rel: string): string | undefined {
  const links = Array.isArray(value) ? value.join(', ') : (value ?? '');
  const wanted = rel.toLowerCase();
  for (const match of links.matchAll(/<([^>]*)>([^<]*)/g)) {
    const [, target, params] = match;
    if (target !== undefined && relationsOf(params ?? '').includes(wanted)) return target;
  }
  return undefined;
}

function relationsOf(params: string): string[] {
  for (const param of params.split(';')) {
    const equals = param.indexOf('=');
    if (equals < 0 || param.slice(0, equals).trim().toLowerCase() !== 'rel') continue;
    const value = param
      .slice(equals + 1)
      .replace(/,\s*$/, '')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    return value.toLowerCase().split(/\s+/).filter(Boolean);
  }
  return [];
}
