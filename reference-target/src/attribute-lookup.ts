/**
 * Attribute names are case-insensitive (RFC 7643 §2.1): `userName`, `USERNAME` and `username` name
 * the same attribute of a request body or a stored resource.
 */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The member of `container` named `name` in any case; undefined when absent or not an object. */
export function getAttribute(container: unknown, name: string): unknown {
  if (!isObject(container)) return undefined;
  if (Object.hasOwn(container, name)) return container[name];
  const wanted = name.toLowerCase();
  const key = Object.keys(container).find((candidate) => candidate.toLowerCase() === wanted);
  return key === undefined ? undefined : container[key];
}
