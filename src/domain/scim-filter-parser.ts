import type {
  AttributePath,
  CompareOperator,
  FilterNode,
  FilterValue,
  PatchPath,
} from './scim-filter-ast.js';
import { syntaxError, tokenize, type SyntaxErrorType, type Token } from './scim-filter-lexer.js';
import { FILTER_LIMITS } from './scim-filter-limits.js';

/**
 * A recursive-descent parser for the filter grammar of RFC 7644 §3.4.2.2 (operator names and
 * attribute names are case-insensitive; precedence: not > and > or; parentheses group) and the
 * PATCH path grammar of RFC 7644 §3.5.2. `and` / `or` chains are parsed by loops; the parser
 * recurses only into groupings, whose depth it caps (FILTER_LIMITS) before going deeper, as it caps
 * the number of terms and, before tokenizing, the length: no input can exhaust the stack.
 */

const COMPARE_OPERATORS: ReadonlySet<string> = new Set([
  'eq',
  'ne',
  'co',
  'sw',
  'ew',
  'gt',
  'ge',
  'lt',
  'le',
]);
const STRING_ONLY_OPERATORS: ReadonlySet<string> = new Set(['co', 'sw', 'ew']);
const ORDERING_OPERATORS: ReadonlySet<string> = new Set(['gt', 'ge', 'lt', 'le']);

/** RFC 7644 §3.4.2.2 ATTRNAME = ALPHA *(nameChar); `$ref` is the one RFC 7643 name outside it. */
const ATTRIBUTE_NAME = /^(?:[A-Za-z][A-Za-z0-9_-]*|\$ref)$/;
const URN_PREFIX = /^urn:/i;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

class Parser {
  private index = 0;
  private inValueFilter = false;
  private depth = 0;
  private terms = 0;

  constructor(
    private readonly input: string,
    private readonly tokens: readonly Token[],
    private readonly scimType: SyntaxErrorType,
  ) {}

  fail(message: string): never {
    throw syntaxError(this.scimType, this.input, message);
  }

  peek(offset = 0): Token | undefined {
    return this.tokens[this.index + offset];
  }

  atEnd(): boolean {
    return this.index >= this.tokens.length;
  }

  take(): Token {
    const token = this.tokens[this.index];
    if (token === undefined) this.fail('unexpected end of input');
    this.index += 1;
    return token;
  }

  expect(type: Token['type'], context: string): Token {
    const token = this.peek();
    if (token?.type !== type) this.fail(`expected "${type}" ${context} but found ${describe(token)}`);
    return this.take();
  }

  isWord(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.type === 'word' && token.text.toLowerCase() === word;
  }

  /** Enters a grouping (a parenthesis or a value filter) opened by `token`. */
  enter(token: Token): void {
    this.depth += 1;
    if (this.depth > FILTER_LIMITS.maxDepth) {
      this.fail(
        `nested deeper than ${FILTER_LIMITS.maxDepth} levels at position ${token.position} (the limit of parentheses and value filters open at once)`,
      );
    }
  }

  leave(): void {
    this.depth -= 1;
  }

  /** FILTER with `or` binding loosest. */
  parseOr(): FilterNode {
    return this.parseChain('or', () => this.parseAnd());
  }

  parseAnd(): FilterNode {
    return this.parseChain('and', () => this.parseUnary());
  }

  /** Operands joined by one logical operator, left to right (RFC 7644 §3.4.2.2 precedence). */
  private parseChain(word: 'and' | 'or', operand: () => FilterNode): FilterNode {
    let left = operand();
    while (this.isWord(word)) {
      this.take();
      left = { kind: word, left, right: operand() };
    }
    return left;
  }

  parseUnary(): FilterNode {
    const token = this.peek();
    if (token?.type === '(') {
      this.enter(this.take());
      const inner = this.parseOr();
      this.expect(')', `to close the "(" at position ${token.position}`);
      this.leave();
      return inner;
    }
    if (this.isWord('not') && this.peek(1)?.type === '(') {
      this.take();
      return { kind: 'not', filter: this.parseUnary() };
    }
    if (this.isWord('not') && !isOperatorToken(this.peek(1))) {
      this.fail(`"not" must be followed by a parenthesised filter, e.g. not (${describeText(this.peek(1))})`);
    }
    return this.parseAttributeExpression();
  }

  parseAttributeExpression(): FilterNode {
    const token = this.peek();
    if (token?.type !== 'word') this.fail(`expected an attribute path but found ${describe(token)}`);
    this.terms += 1;
    if (this.terms > FILTER_LIMITS.maxTerms) {
      this.fail(
        `more than ${FILTER_LIMITS.maxTerms} attribute expressions (the limit of a filter) at position ${token.position}`,
      );
    }
    const path = this.parseAttributePath(this.take());
    if (this.peek()?.type === '[') return this.parseValuePath(path);
    const operatorToken = this.peek();
    if (operatorToken === undefined) this.fail(`expected an operator after "${token.text}"`);
    const operator = operatorToken.type === 'word' ? operatorToken.text.toLowerCase() : '';
    this.take();
    if (operator === 'pr') return { kind: 'present', path };
    if (!COMPARE_OPERATORS.has(operator)) {
      this.fail(`unknown operator ${describe(operatorToken)} at position ${operatorToken.position}`);
    }
    const value = this.parseValue(operator);
    return { kind: 'compare', path, operator: operator as CompareOperator, value };
  }

  parseValuePath(path: AttributePath): FilterNode {
    const open = this.take();
    if (this.inValueFilter) this.fail(`value filters cannot be nested (position ${open.position})`);
    if (path.subAttribute !== undefined)
      this.fail('a value filter must follow an attribute, not a sub-attribute');
    this.enter(open);
    this.inValueFilter = true;
    const filter = this.parseOr();
    this.inValueFilter = false;
    this.expect(']', `to close the "[" at position ${open.position}`);
    this.leave();
    return { kind: 'valuePath', path, filter };
  }

  parseValue(operator: string): FilterValue {
    const token = this.peek();
    if (token === undefined) this.fail(`expected a value after "${operator}"`);
    this.take();
    const value = literalValue(token);
    if (value === undefined) {
      this.fail(
        `expected a value (a "quoted string", a number, true, false or null) but found ${describe(token)}`,
      );
    }
    if (STRING_ONLY_OPERATORS.has(operator) && typeof value !== 'string') {
      this.fail(`"${operator}" compares strings only`);
    }
    if (ORDERING_OPERATORS.has(operator) && (typeof value === 'boolean' || value === null)) {
      this.fail(`"${operator}" cannot compare ${String(value)} (RFC 7644 §3.4.2.2)`);
    }
    return value;
  }

  parseAttributePath(token: Token): AttributePath {
    return parseAttributePathText(token.text, (message) =>
      this.fail(`${message} at position ${token.position}`),
    );
  }
}

function parseAttributePathText(text: string, fail: (message: string) => never): AttributePath {
  let schema: string | undefined;
  let rest = text;
  if (URN_PREFIX.test(text)) {
    const colon = text.lastIndexOf(':');
    schema = text.slice(0, colon);
    rest = text.slice(colon + 1);
    if (schema.length <= 'urn:'.length || rest === '') fail(`malformed URN-qualified attribute "${text}"`);
  }
  const parts = rest.split('.');
  if (parts.length > 2 || !parts.every((part) => ATTRIBUTE_NAME.test(part))) {
    fail(`malformed attribute path "${text}"`);
  }
  const [attribute = '', subAttribute] = parts;
  return {
    ...(schema === undefined ? {} : { schema }),
    attribute,
    ...(subAttribute === undefined ? {} : { subAttribute }),
  };
}

function literalValue(token: Token): FilterValue | undefined {
  if (token.type === 'string') return token.text;
  if (token.type !== 'word') return undefined;
  const lower = token.text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  return JSON_NUMBER.test(token.text) ? Number(token.text) : undefined;
}

function isOperatorToken(token: Token | undefined): boolean {
  if (token?.type !== 'word') return false;
  const word = token.text.toLowerCase();
  return word === 'pr' || COMPARE_OPERATORS.has(word);
}

function describe(token: Token | undefined): string {
  if (token === undefined) return 'the end of input';
  if (token.type === 'string') return `the string ${JSON.stringify(token.text)}`;
  return `"${token.text}"`;
}

function describeText(token: Token | undefined): string {
  return token === undefined ? '...' : token.type === 'string' ? JSON.stringify(token.text) : token.text;
}

/** Refuses an input longer than FILTER_LIMITS.maxLength before any work is spent on it. */
function checkLength(text: string, scimType: SyntaxErrorType): void {
  if (text.length <= FILTER_LIMITS.maxLength) return;
  const what = scimType === 'invalidFilter' ? 'a filter' : 'a path';
  throw syntaxError(
    scimType,
    text,
    `longer than ${FILTER_LIMITS.maxLength} characters (the limit of ${what})`,
  );
}

/** Parses a filter (RFC 7644 §3.4.2.2); throws BridgeError invalid_input, scimType invalidFilter. */
export function parseFilter(text: string): FilterNode {
  checkLength(text, 'invalidFilter');
  const parser = new Parser(text, tokenize(text, 'invalidFilter'), 'invalidFilter');
  if (parser.atEnd()) parser.fail('the filter is empty');
  const node = parser.parseOr();
  if (!parser.atEnd()) {
    const token = parser.peek();
    parser.fail(`unexpected ${describe(token)} at position ${token?.position ?? text.length}`);
  }
  return node;
}

/** Parses a PATCH path (RFC 7644 §3.5.2); throws BridgeError invalid_input, scimType invalidPath. */
export function parsePath(text: string): PatchPath {
  checkLength(text, 'invalidPath');
  const parser = new Parser(text, tokenize(text, 'invalidPath'), 'invalidPath');
  const first = parser.peek();
  if (first?.type !== 'word')
    parser.fail(first === undefined ? 'the path is empty' : 'expected an attribute');
  const path: PatchPath = parser.parseAttributePath(parser.take());
  if (parser.peek()?.type === '[') {
    const node = parser.parseValuePath(path);
    if (node.kind === 'valuePath') path.valueFilter = node.filter;
    const after = parser.peek();
    if (after?.type === 'word' && after.text.startsWith('.') && ATTRIBUTE_NAME.test(after.text.slice(1))) {
      parser.take();
      path.subAttribute = after.text.slice(1);
    }
  }
  if (!parser.atEnd())
    parser.fail(`unexpected ${describe(parser.peek())} at position ${parser.peek()?.position}`);
  return path;
}
