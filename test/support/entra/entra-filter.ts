import { propertyOf, type DirectoryObject, type ObjectKind } from './entra-objects.js';

/**
 * The `$filter` expressions the emulation evaluates on users and groups (query-parameters.md,
 * aad-advanced-queries.md): `prop eq|ne|ge|le 'value'`, `prop in ('a','b')`, `startsWith(prop,'x')`,
 * `endsWith(prop,'x')`, `not(…)`, `and`, `or`, parentheses; strings compare ignoring case as the
 * directory does. `ne`, `not`, `endsWith`, `ge`/`le` and `eq null` are advanced queries: without
 * `ConsistencyLevel: eventual` and `$count=true` Graph refuses them, and so does this.
 */

export type Filter = {
  test(object: DirectoryObject): boolean;
  lookup?: { property: string; values: string[] };
};

export class FilterError extends Error {
  constructor(
    message: string,
    readonly code = 'Request_UnsupportedQuery',
  ) {
    super(message);
  }
}

/** Properties a filter may name, per type (the others are refused as unsupported clauses). */
const FILTERABLE: Partial<Record<ObjectKind, Set<string>>> = {
  user: new Set([
    'id',
    'accountEnabled',
    'department',
    'displayName',
    'employeeId',
    'givenName',
    'jobTitle',
    'mail',
    'mailNickname',
    'onPremisesImmutableId',
    'surname',
    'userPrincipalName',
    'userType',
  ]),
  group: new Set(['id', 'displayName', 'mail', 'mailEnabled', 'mailNickname', 'securityEnabled']),
};

type Literal = string | number | boolean | null;
type Node =
  | { op: 'and' | 'or'; left: Node; right: Node }
  | { op: 'not'; inner: Node }
  | { op: 'eq' | 'ne' | 'ge' | 'le' | 'gt' | 'lt'; property: string; value: Literal }
  | { op: 'in'; property: string; values: Literal[] }
  | { op: 'startswith' | 'endswith'; property: string; value: string };

const TOKEN = /\s*('(?:[^']|'')*'|\(|\)|,|[A-Za-z_][\w/.]*|-?\d+(?:\.\d+)?)/y;

export function parseFilter(text: string, kind: ObjectKind, advanced: boolean): Filter {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match?.[1]) {
      if (text.slice(at).trim() === '') break;
      throw new FilterError(
        `Invalid filter clause: syntax error at position ${at} in '${text}'.`,
        'BadRequest',
      );
    }
    tokens.push(match[1]);
  }
  const parser = new Parser(tokens, kind);
  const node = parser.or();
  if (!parser.done())
    throw new FilterError(`Invalid filter clause: unexpected '${parser.peek()}'.`, 'BadRequest');
  if (!advanced) refuseAdvanced(node);
  return { test: (object) => evaluate(node, object), ...lookupOf(node) };
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: string[],
    private readonly kind: ObjectKind,
  ) {}

  done(): boolean {
    return this.i >= this.tokens.length;
  }

  peek(): string | undefined {
    return this.tokens[this.i];
  }

  or(): Node {
    let left = this.and();
    while (this.peek()?.toLowerCase() === 'or') {
      this.i++;
      left = { op: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Node {
    let left = this.term();
    while (this.peek()?.toLowerCase() === 'and') {
      this.i++;
      left = { op: 'and', left, right: this.term() };
    }
    return left;
  }

  private term(): Node {
    const word = this.next().toLowerCase();
    if (word === '(') return this.closing(this.or());
    if (word === 'not') return { op: 'not', inner: this.term() };
    if (word === 'startswith' || word === 'endswith') {
      this.expect('(');
      const property = this.property(this.next());
      this.expect(',');
      const value = this.literal();
      if (typeof value !== 'string') throw new FilterError(`${word} takes a string.`);
      return this.closing({ op: word, property, value });
    }
    const property = this.property(this.tokens[this.i - 1] as string);
    const op = this.next().toLowerCase();
    if (op === 'in') return { op, property, values: this.list() };
    if (!['eq', 'ne', 'ge', 'le', 'gt', 'lt'].includes(op))
      throw new FilterError(`Unsupported operator '${op}'.`);
    return { op: op as 'eq', property, value: this.literal() };
  }

  private list(): Literal[] {
    this.expect('(');
    const values = [this.literal()];
    while (this.peek() === ',') {
      this.i++;
      values.push(this.literal());
    }
    this.expect(')');
    return values;
  }

  private literal(): Literal {
    const token = this.next();
    if (token.startsWith("'")) return token.slice(1, -1).replaceAll("''", "'");
    if (/^-?\d/.test(token)) return Number(token);
    const word = token.toLowerCase();
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    throw new FilterError(`Invalid filter clause: '${token}' is not a literal.`, 'BadRequest');
  }

  private property(name: string): string {
    const property = propertyOf(this.kind, name);
    if (!property) {
      throw new FilterError(
        `Could not find a property named '${name}' on type 'microsoft.graph.${this.kind}'.`,
        'BadRequest',
      );
    }
    if (!FILTERABLE[this.kind]?.has(property)) {
      throw new FilterError(
        `Unsupported or invalid query filter clause specified for property '${property}' of resource '${this.kind}'.`,
      );
    }
    return property;
  }

  private closing(node: Node): Node {
    this.expect(')');
    return node;
  }

  private expect(token: string): void {
    if (this.next() !== token)
      throw new FilterError(`Invalid filter clause: '${token}' expected.`, 'BadRequest');
  }

  private next(): string {
    const token = this.tokens[this.i++];
    if (token === undefined)
      throw new FilterError('Invalid filter clause: the expression ends too soon.', 'BadRequest');
    return token;
  }
}

function refuseAdvanced(node: Node): void {
  const advanced =
    node.op === 'ne' ||
    node.op === 'not' ||
    node.op === 'endswith' ||
    ['ge', 'le', 'gt', 'lt'].includes(node.op) ||
    (node.op === 'eq' && node.value === null);
  if (advanced) {
    throw new FilterError(
      `Operator '${node.op}' is not supported because the required parameters might be missing. Try adding ` +
        '$count=true query parameter and ConsistencyLevel:eventual header. Refer to https://aka.ms/graph-docs/advanced-queries for more information',
    );
  }
  if (node.op === 'and' || node.op === 'or') {
    refuseAdvanced(node.left);
    refuseAdvanced(node.right);
  }
}

function evaluate(node: Node, object: DirectoryObject): boolean {
  switch (node.op) {
    case 'and':
      return evaluate(node.left, object) && evaluate(node.right, object);
    case 'or':
      return evaluate(node.left, object) || evaluate(node.right, object);
    case 'not':
      return !evaluate(node.inner, object);
    case 'in':
      return node.values.some((value) => compare(valueOf(object, node.property), value) === 0);
    case 'startswith':
    case 'endswith': {
      const actual = valueOf(object, node.property);
      if (typeof actual !== 'string') return false;
      const [a, b] = [actual.toLowerCase(), node.value.toLowerCase()];
      return node.op === 'startswith' ? a.startsWith(b) : a.endsWith(b);
    }
    default: {
      const order = compare(valueOf(object, node.property), node.value);
      const verdicts = {
        eq: order === 0,
        ne: order !== 0,
        ge: order >= 0,
        le: order <= 0,
        gt: order > 0,
        lt: order < 0,
      };
      return Number.isNaN(order) ? node.op === 'ne' : verdicts[node.op];
    }
  }
}

function valueOf(object: DirectoryObject, property: string): unknown {
  return property === 'id' ? object.id : (object.props[property] ?? null);
}

function compare(actual: unknown, expected: Literal): number {
  if (actual === null || expected === null) return actual === expected ? 0 : NaN;
  if (typeof actual === 'string' && typeof expected === 'string') {
    return actual.toLowerCase().localeCompare(expected.toLowerCase(), 'en');
  }
  if (typeof actual === typeof expected)
    return actual === expected ? 0 : (actual as number) < (expected as number) ? -1 : 1;
  return NaN;
}

/** `id eq`, `userPrincipalName eq` and their `in` lists answer from an index, not a scan. */
function lookupOf(node: Node): { lookup?: { property: string; values: string[] } } {
  const indexed = (p: string) => p === 'id' || p === 'userPrincipalName';
  if (node.op === 'eq' && indexed(node.property) && typeof node.value === 'string') {
    return { lookup: { property: node.property, values: [node.value] } };
  }
  if (node.op === 'in' && indexed(node.property) && node.values.every((v) => typeof v === 'string')) {
    return { lookup: { property: node.property, values: node.values as string[] } };
  }
  return {};
}
