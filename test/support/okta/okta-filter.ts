/**
 * The filter expressions Okta's list endpoints take (`filter`, `search`; the System Log's `filter`):
 * SCIM-like `attribute op "value"` comparisons joined by `and` / `or`, grouped with parentheses,
 * negated with `not (…)`, and `attribute pr`. Okta's reference lists the operators eq, ne, co, sw,
 * ew, gt, ge, lt, le and pr; `[ ]` is not supported. An attribute path is dotted
 * (`profile.login`, `target.id`); over an array (`target[]`) a comparison holds when any element
 * holds it. `eq` / `ne` compare exactly; co, sw and ew ignore case.
 *
 * Written for the emulation alone: the bridge builds these strings and never parses them.
 */

export type OktaFilter = (resource: unknown) => boolean;

export class OktaFilterError extends Error {}

const OPERATORS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const TOKEN = /\s*(\(|\)|"(?:[^"\\]|\\.)*"|[^\s()"]+)/y;

export function parseOktaFilter(text: string): OktaFilter {
  const tokens = tokenize(text);
  const parser = new Parser(tokens, text);
  const filter = parser.or();
  if (!parser.done()) throw new OktaFilterError(`Unexpected '${parser.peek()}' in filter '${text}'`);
  return filter;
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match?.[1]) {
      if (text.slice(start).trim() === '') break;
      throw new OktaFilterError(`Unreadable filter '${text}' at position ${start}`);
    }
    tokens.push(match[1]);
  }
  return tokens;
}

class Parser {
  private index = 0;

  constructor(
    private readonly tokens: readonly string[],
    private readonly text: string,
  ) {}

  done(): boolean {
    return this.index >= this.tokens.length;
  }

  peek(): string | undefined {
    return this.tokens[this.index];
  }

  or(): OktaFilter {
    const parts = [this.and()];
    while (this.peek()?.toLowerCase() === 'or') {
      this.index++;
      parts.push(this.and());
    }
    return parts.length === 1 ? (parts[0] as OktaFilter) : (r) => parts.some((p) => p(r));
  }

  private and(): OktaFilter {
    const parts = [this.factor()];
    while (this.peek()?.toLowerCase() === 'and') {
      this.index++;
      parts.push(this.factor());
    }
    return parts.length === 1 ? (parts[0] as OktaFilter) : (r) => parts.every((p) => p(r));
  }

  private factor(): OktaFilter {
    const token = this.next();
    if (token.toLowerCase() === 'not') {
      const inner = this.group();
      return (r) => !inner(r);
    }
    if (token === '(') {
      this.index--;
      return this.group();
    }
    return this.comparison(token);
  }

  private group(): OktaFilter {
    if (this.next() !== '(') throw this.error('Expected (');
    const inner = this.or();
    if (this.next() !== ')') throw this.error('Expected )');
    return inner;
  }

  private comparison(path: string): OktaFilter {
    const op = this.next().toLowerCase();
    if (op === 'pr') return (r) => valuesAt(r, path).some((v) => v !== null && v !== '');
    if (!OPERATORS.has(op)) {
      throw this.error(`Unrecognized attribute operator '${op}'. Expected: ${[...OPERATORS].join(',')},pr`);
    }
    const expected = literal(this.next(), this.text);
    return (r) => valuesAt(r, path).some((v) => compare(op, v, expected));
  }

  private next(): string {
    const token = this.tokens[this.index++];
    if (token === undefined) throw this.error('Unexpected end');
    return token;
  }

  private error(message: string): OktaFilterError {
    return new OktaFilterError(`Invalid filter '${this.text}': ${message}`);
  }
}

function literal(token: string, text: string): string | number | boolean | null {
  if (token.startsWith('"')) return JSON.parse(token) as string;
  if (token === 'true' || token === 'false') return token === 'true';
  if (token === 'null') return null;
  const number = Number(token);
  if (Number.isFinite(number)) return number;
  throw new OktaFilterError(`Invalid filter '${text}': '${token}' is not a value`);
}

function valuesAt(resource: unknown, path: string): unknown[] {
  let values: unknown[] = [resource];
  for (const part of path.split('.')) {
    values = values.flatMap((value) => {
      if (value === null || typeof value !== 'object') return [];
      const child = (value as Record<string, unknown>)[part];
      return Array.isArray(child) ? child : [child];
    });
  }
  return values.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v) => v !== undefined);
}

function compare(op: string, actual: unknown, expected: string | number | boolean | null): boolean {
  if (op === 'eq') return actual === expected;
  if (op === 'ne') return actual !== expected;
  if (typeof actual !== 'string' || typeof expected !== 'string') {
    if (typeof actual === 'number' && typeof expected === 'number') return ordered(op, actual - expected);
    return false;
  }
  const a = actual.toLowerCase();
  const e = expected.toLowerCase();
  if (op === 'co') return a.includes(e);
  if (op === 'sw') return a.startsWith(e);
  if (op === 'ew') return a.endsWith(e);
  return ordered(op, actual < expected ? -1 : actual > expected ? 1 : 0);
}

function ordered(op: string, sign: number): boolean {
  if (op === 'gt') return sign > 0;
  if (op === 'ge') return sign >= 0;
  if (op === 'lt') return sign < 0;
  return sign <= 0;
}
