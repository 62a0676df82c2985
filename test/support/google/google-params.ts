import { apiError, invalidValue, outOfRange, type Reply } from './google-errors.js';

/**
 * Query parameters as Google's front end checks them against the API's discovery document:
 * integers within their documented bounds (`maxResults`), enumerations, booleans, and the partial
 * response selector `fields` (developers.google.com/workspace/admin/directory/v1/guides/performance,
 * "Partial response": `a,b`, `a/b`, `a(b,c)`, `*`), whose names must exist in the resource.
 */

export function intParam(
  url: URL,
  name: string,
  bounds: { min: number; max: number; fallback: number },
): number | Reply {
  const raw = url.searchParams.get(name);
  if (raw === null) return bounds.fallback;
  if (!/^-?\d+$/.test(raw)) return invalidValue(name, raw);
  const value = Number(raw);
  return value < bounds.min || value > bounds.max ? outOfRange(raw, bounds.min, bounds.max) : value;
}

export function enumParam<T extends string>(
  url: URL,
  name: string,
  allowed: readonly T[],
  fallback?: T,
): T | undefined | Reply {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const found = allowed.find((value) => value.toLowerCase() === raw.toLowerCase());
  return found ?? invalidValue(name, raw);
}

export function boolParam(url: URL, name: string): boolean | Reply {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  return invalidValue(name, raw);
}

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}

/** A parsed selection: each selected name, with the selection inside it (undefined: all of it). */
type Selection = Map<string, Selection | undefined>;

/** What a response may contain: its own names, and those of the items of its list key. */
export interface Shape {
  names: readonly string[];
  list?: { key: string; names: readonly string[] };
}

/** Applies `fields` to a response body; a Reply for a selection Google would refuse. */
export function selectFields(body: Record<string, unknown>, fields: string | null, shape: Shape): unknown {
  if (fields === null || fields.trim() === '') return body;
  const parsed = parse(fields.replace(/\s+/g, ''));
  if (typeof parsed === 'string') return badSelection(parsed);
  const unknown = unknownName(parsed, shape);
  if (unknown !== undefined) return badSelection(unknown);
  return apply(body, parsed);
}

function badSelection(what: string): Reply {
  const message = `Invalid field selection ${what}`;
  return apiError(400, message, {
    message,
    reason: 'invalidParameter',
    location: 'fields',
    locationType: 'parameter',
  });
}

function unknownName(selection: Selection, shape: Shape): string | undefined {
  for (const [name, inner] of selection) {
    if (name === '*') continue;
    if (!shape.names.includes(name)) return name;
    if (inner && shape.list && name === shape.list.key) {
      const below = unknownName(inner, { names: shape.list.names });
      if (below !== undefined) return below;
    }
  }
  return undefined;
}

/** Parses `a,b/c,d(e,f/g)`; a string names the part it could not read. */
function parse(text: string): Selection | string {
  const selection: Selection = new Map();
  let rest = text;
  while (rest.length > 0) {
    const match = /^([A-Za-z_*][\w*]*)/.exec(rest);
    if (!match) return rest;
    const name = match[1] as string;
    rest = rest.slice(name.length);
    let inner: Selection | undefined;
    if (rest.startsWith('/')) {
      const end = topLevelEnd(rest.slice(1));
      const nested = parse(rest.slice(1, 1 + end));
      if (typeof nested === 'string') return nested;
      inner = nested;
      rest = rest.slice(1 + end);
    } else if (rest.startsWith('(')) {
      const close = closing(rest);
      if (close < 0) return rest;
      const nested = parse(rest.slice(1, close));
      if (typeof nested === 'string' || nested.size === 0) return rest.slice(0, close + 1);
      inner = nested;
      rest = rest.slice(close + 1);
    }
    selection.set(name, merge(selection.get(name), inner, selection.has(name)));
    if (rest.startsWith(',')) {
      rest = rest.slice(1);
      if (rest.length === 0) return ',';
    } else if (rest.length > 0) return rest;
  }
  return selection;
}

function merge(old: Selection | undefined, added: Selection | undefined, existed: boolean) {
  if (!existed) return added;
  if (old === undefined || added === undefined) return undefined;
  return new Map([...old, ...added]);
}

/** Where a `/` path ends: at the first comma outside parentheses. */
function topLevelEnd(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) return i;
  }
  return text.length;
}

function closing(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

function apply(value: unknown, selection: Selection | undefined): unknown {
  if (selection === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => apply(item, selection));
  if (typeof value !== 'object' || value === null) return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of selection) {
    if (name === '*') Object.assign(out, source);
    else if (name in source) out[name] = apply(source[name], inner);
  }
  return out;
}
