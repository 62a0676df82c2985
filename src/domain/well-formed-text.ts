/**
 * Well-formed Unicode at every edge. JSON may carry a lone UTF-16 surrogate as an escape
 * (`"\ud800"`); JavaScript keeps it, but it is no character, and Redis' Lua JSON decoder refuses it.
 * Inputs holding one are refused with the path of the offending value, before anything is written.
 */

/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

export type JsonPath = readonly (string | number)[];

/** What a problem line says about such a value. */
export const MALFORMED_TEXT_REASON = 'not well-formed Unicode (a lone UTF-16 surrogate)';

interface Visit {
  value: unknown;
  key?: string | number;
  parent?: Visit;
}

/**
 * The path of the first string (value or object key) that is not well-formed, or undefined. The
 * walk keeps its own stack, so no nesting depth can overflow the call stack, and builds a path
 * only for what it finds (a snapshot of 100,000 users is walked at every edge).
 */
export function findMalformedText(value: unknown): JsonPath | undefined {
  const stack: Visit[] = [{ value }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const item = visit.value;
    if (typeof item === 'string') {
      if (!isWellFormedText(item)) return pathOf(visit);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i] as unknown, key: i, parent: visit });
    } else if (typeof item === 'object' && item !== null) {
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child: Visit = { value: (item as Record<string, unknown>)[key], key, parent: visit };
        if (!isWellFormedText(key)) return pathOf(child);
        stack.push(child);
      }
    }
  }
  return undefined;
}

function pathOf(visit: Visit): JsonPath {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/** `['users', 3, 'userName']` → `users[3].userName`; the root alone is `root`. */
export function formatJsonPath(path: JsonPath, root = 'body'): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? safeKey(part) : `.${safeKey(part)}`;
  }
  return out === '' ? root : out;
}

/** A key shown in a message is itself made well-formed (its lone surrogates replaced). */
function safeKey(key: string): string {
  return isWellFormedText(key) ? key : key.replace(new RegExp(LONE_SURROGATE, 'g'), '\ufffd');
}
