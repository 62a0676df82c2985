import { BridgeError } from './errors.js';

/**
 * Tokens of SCIM filters and PATCH paths (RFC 7644 §3.4.2.2, §3.5.2). A word is any run of
 * characters other than white space, brackets, parentheses and quotes; the parser decides whether
 * it is an attribute path, an operator or a literal. Strings are JSON strings (RFC 7159 §7).
 */

export type TokenType = 'word' | 'string' | '(' | ')' | '[' | ']';

export interface Token {
  type: TokenType;
  /** The word itself, or the decoded value of a string literal. */
  text: string;
  /** Zero-based character offset in the input, for error messages. */
  position: number;
}

/** RFC 7644 §3.12: which error a malformed input is. */
export type SyntaxErrorType = 'invalidFilter' | 'invalidPath';

export function syntaxError(scimType: SyntaxErrorType, input: string, message: string): BridgeError {
  const what = scimType === 'invalidFilter' ? 'filter' : 'path';
  const text = `Invalid ${what} ${quoteInput(input)}: ${message}`;
  return new BridgeError('invalid_input', text, { scimType, status: 400, detail: text });
}

/** Inputs longer than this are quoted by their start only, so that an error stays small. */
const QUOTED_INPUT_MAX = 200;

function quoteInput(input: string): string {
  if (input.length <= QUOTED_INPUT_MAX) return JSON.stringify(input);
  return `${JSON.stringify(input.slice(0, QUOTED_INPUT_MAX / 2))}… (${input.length} characters)`;
}

const PUNCTUATION = new Set(['(', ')', '[', ']']);
const WHITESPACE = /\s/;

export function tokenize(input: string, scimType: SyntaxErrorType): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < input.length) {
    const char = input.charAt(index);
    if (WHITESPACE.test(char)) {
      index += 1;
    } else if (PUNCTUATION.has(char)) {
      tokens.push({ type: char as TokenType, text: char, position: index });
      index += 1;
    } else if (char === '"') {
      const end = stringEnd(input, index, scimType);
      tokens.push({ type: 'string', text: decodeString(input, index, end, scimType), position: index });
      index = end + 1;
    } else {
      const start = index;
      while (index < input.length && !isWordBreak(input.charAt(index))) index += 1;
      tokens.push({ type: 'word', text: input.slice(start, index), position: start });
    }
  }
  return tokens;
}

function isWordBreak(char: string): boolean {
  return WHITESPACE.test(char) || PUNCTUATION.has(char) || char === '"';
}

/** The index of the quote that closes the string opened at `start`. */
function stringEnd(input: string, start: number, scimType: SyntaxErrorType): number {
  let index = start + 1;
  while (index < input.length) {
    const char = input.charAt(index);
    if (char === '\\') index += 2;
    else if (char === '"') return index;
    else index += 1;
  }
  throw syntaxError(scimType, input, `unterminated string starting at position ${start}`);
}

function decodeString(input: string, start: number, end: number, scimType: SyntaxErrorType): string {
  try {
    return JSON.parse(input.slice(start, end + 1)) as string;
  } catch {
    throw syntaxError(
      scimType,
      input,
      `malformed string at position ${start} (strings are JSON strings: escape " and \\ with a backslash, no raw control characters)`,
    );
  }
}
