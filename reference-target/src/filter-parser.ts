import {
  syntaxError,
  tokenize,
  type AttributePath,
  type CompareOperator,
  type FilterNode,
  type FilterValue,
  type PatchPath,
  type SyntaxErrorType,
  type Token,
} from './filter-syntax.js';

type ValuePathNode = Extract<FilterNode, { kind: 'valuePath' }>;

/**
 * Parses filters (RFC 7644 §3.4.2.2) and PATCH paths (RFC 7644 §3.5.2) by recursive descent, one
 * function per rule of the grammar:
 *
 *   filter  = and *("or" and)           (so "and" binds tighter than "or")
 *   and     = factor *("and" factor)
 *   factor  = "not" "(" filter ")" / "(" filter ")" / attrPath ("pr" / compareOp compValue)
 *             / attrPath "[" filter "]"  (no value path inside a value path)
 *
 * Keywords, operators and the literals true/false/null are case-insensitive (ABNF strings are).
 */

const OPERATORS: ReadonlySet<string> = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
/** RFC 7644 §3.4.2.2: co/sw/ew compare strings; gt/ge/lt/le refuse booleans (and null). */
const SUBSTRING_OPERATORS: ReadonlySet<string> = new Set(['co', 'sw', 'ew']);
const ORDER_OPERATORS: ReadonlySet<string> = new Set(['gt', 'ge', 'lt', 'le']);

/** ATTRNAME = ALPHA *(nameChar), nameChar = "-" / "_" / DIGIT / ALPHA; RFC 7643 adds `$ref`. */
const ATTRIBUTE_NAME = /^(?:[A-Za-z][\w-]*|\$ref)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

export function parseFilter(text: string): FilterNode {
  const parser = new Parser(text, 'invalidFilter');
  if (parser.done()) parser.fail('it is empty');
  const filter = parser.filter();
  parser.expectEnd();
  return filter;
}

export function parsePath(text: string): PatchPath {
  const parser = new Parser(text, 'invalidPath');
  const path = parser.patchPath();
  parser.expectEnd();
  return path;
}

/**
 * `[URI ":"] ATTRNAME ["." ATTRNAME]`; undefined when malformed. A URN runs up to its last colon,
 * so `urn:ietf:params:scim:schemas:core:2.0:User:name.givenName` names `name.givenName`.
 */
export function readAttributePath(text: string): AttributePath | undefined {
  let schema: string | undefined;
  let local = text;
  if (text.toLowerCase().startsWith('urn:')) {
    const colon = text.lastIndexOf(':');
    schema = text.slice(0, colon);
    local = text.slice(colon + 1);
  }
  const names = local.split('.');
  if (names.length > 2 || !names.every((name) => ATTRIBUTE_NAME.test(name))) return undefined;
  const [attribute = '', subAttribute] = names;
  return {
    ...(schema === undefined ? {} : { schema }),
    attribute,
    ...(subAttribute === undefined ? {} : { subAttribute }),
  };
}

class Parser {
  private readonly tokens: Token[];
  private position = 0;
  private inValueFilter = false;

  constructor(
    private readonly input: string,
    private readonly type: SyntaxErrorType,
  ) {
    this.tokens = tokenize(input, type);
  }

  fail(problem: string): never {
    throw syntaxError(this.type, this.input, problem);
  }

  done(): boolean {
    return this.position >= this.tokens.length;
  }

  expectEnd(): void {
    const token = this.tokens[this.position];
    if (token !== undefined) this.fail(`unexpected ${describe(token)} at position ${token.at}`);
  }

  filter(): FilterNode {
    let left = this.conjunction();
    while (this.atKeyword('or')) {
      this.next('a filter');
      left = { kind: 'or', left, right: this.conjunction() };
    }
    return left;
  }

  patchPath(): PatchPath {
    const path: PatchPath = this.attributePath(this.next('an attribute path'));
    if (this.peek()?.kind !== '[') return path;
    path.valueFilter = this.valuePath(path).filter;
    const after = this.peek();
    if (after?.kind === 'word' && after.text.startsWith('.')) {
      this.next('a sub-attribute');
      const subAttribute = after.text.slice(1);
      if (!ATTRIBUTE_NAME.test(subAttribute)) this.fail(`malformed sub-attribute "${after.text}"`);
      path.subAttribute = subAttribute;
    }
    return path;
  }

  private conjunction(): FilterNode {
    let left = this.factor();
    while (this.atKeyword('and')) {
      this.next('a filter');
      left = { kind: 'and', left, right: this.factor() };
    }
    return left;
  }

  private factor(): FilterNode {
    if (this.atKeyword('not') && this.peek(1)?.kind === '(') {
      this.next('"not"');
      return { kind: 'not', filter: this.group() };
    }
    if (this.atKeyword('not') && !isOperator(this.peek(1)))
      this.fail('"not" must be followed by a filter in parentheses');
    if (this.peek()?.kind === '(') return this.group();
    return this.attributeExpression();
  }

  private group(): FilterNode {
    const open = this.next('"("');
    const inner = this.filter();
    const close = this.next(`")" for the "(" at position ${open.at}`);
    if (close.kind !== ')')
      this.fail(`expected ")" for the "(" at position ${open.at}, found ${describe(close)}`);
    return inner;
  }

  private attributeExpression(): FilterNode {
    const path = this.attributePath(this.next('an attribute path'));
    if (this.peek()?.kind === '[') return this.valuePath(path);
    const operatorToken = this.next(`an operator after the attribute path`);
    const operator = operatorToken.kind === 'word' ? operatorToken.text.toLowerCase() : '';
    if (operator === 'pr') return { kind: 'present', path };
    if (!OPERATORS.has(operator))
      this.fail(`expected an operator at position ${operatorToken.at}, found ${describe(operatorToken)}`);
    const value = this.compareValue(operator);
    return { kind: 'compare', path, operator: operator as CompareOperator, value };
  }

  private valuePath(path: AttributePath): ValuePathNode {
    const open = this.next('"["');
    if (this.inValueFilter) this.fail(`a value filter cannot contain another (position ${open.at})`);
    if (path.subAttribute !== undefined)
      this.fail('a value filter follows an attribute, not a sub-attribute');
    this.inValueFilter = true;
    const filter = this.filter();
    this.inValueFilter = false;
    const close = this.next(`"]" for the "[" at position ${open.at}`);
    if (close.kind !== ']')
      this.fail(`expected "]" for the "[" at position ${open.at}, found ${describe(close)}`);
    return { kind: 'valuePath', path, filter };
  }

  private compareValue(operator: string): FilterValue {
    const token = this.next(`a value after "${operator}"`);
    const value = literal(token);
    if (value === undefined)
      this.fail(`expected a value (a JSON string, number, true, false or null), found ${describe(token)}`);
    if (SUBSTRING_OPERATORS.has(operator) && typeof value !== 'string')
      this.fail(`"${operator}" needs a string value`);
    if (ORDER_OPERATORS.has(operator) && (typeof value === 'boolean' || value === null))
      this.fail(`"${operator}" cannot order ${String(value)}`);
    return value;
  }

  private attributePath(token: Token): AttributePath {
    const path = token.kind === 'word' ? readAttributePath(token.text) : undefined;
    if (path === undefined)
      this.fail(`expected an attribute path at position ${token.at}, found ${describe(token)}`);
    return path;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.position + offset];
  }

  private atKeyword(keyword: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.text.toLowerCase() === keyword;
  }

  /** The next token; `wanted` names what the grammar needs here, for the error at the end of input. */
  private next(wanted: string): Token {
    const token = this.tokens[this.position];
    if (token === undefined) this.fail(`expected ${wanted} at the end`);
    this.position += 1;
    return token;
  }
}

function literal(token: Token): FilterValue | undefined {
  if (token.kind === 'string') return token.text;
  if (token.kind !== 'word') return undefined;
  const word = token.text.toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  return NUMBER.test(token.text) ? Number(token.text) : undefined;
}

function isOperator(token: Token | undefined): boolean {
  if (token?.kind !== 'word') return false;
  const word = token.text.toLowerCase();
  return word === 'pr' || OPERATORS.has(word);
}

function describe(token: Token): string {
  return token.kind === 'string' ? `the string ${JSON.stringify(token.text)}` : `"${token.text}"`;
}
