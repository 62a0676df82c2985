/** A JSON object as it arrives in a request body or is built for a response. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of JSON data (request bodies and stored documents hold nothing else). */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** The own key of `object` that equals `name` case-insensitively (RFC 7643 §2.1). */
export function keyOf(object: JsonObject, name: string): string | undefined {
  if (Object.hasOwn(object, name)) return name;
  const lower = name.toLowerCase();
  for (const key of Object.keys(object)) if (key.toLowerCase() === lower) return key;
  return undefined;
}

/** RFC 7643 §2.5: null, an empty array and an object without values all mean "unassigned". */
export function isUnassigned(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.values(value).every(isUnassigned);
  return false;
}

/** Two JSON values are equal (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => jsonEqual(a[key], b[key]));
  }
  return false;
}
