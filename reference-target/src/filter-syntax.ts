import { badRequest, type ScimError } from './scim-errors.js';

/**
 * The syntax of SCIM filters (RFC 7644 §3.4.2.2) and PATCH paths (RFC 7644 §3.5.2): the tree the
 * parser (filter-parser.ts) builds and the tokens it reads.
 */

/** RFC 7644 §3.4.2.2, table 3, without `pr` (which takes no value). */
export type CompareOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** compValue = false / null / true / number / string. */
export type FilterValue = string | number | boolean | null;

/** attrPath = [URI ":"] ATTRNAME *1subAttr. */
export interface AttributePath {
  /** The schema URN the path was qualified with (RFC 7644 §3.10), if any. */
  schema?: string;
  attribute: string;
  subAttribute?: string;
}

export type FilterNode =
  | { kind: 'compare'; path: AttributePath; operator: CompareOperator; value: FilterValue }
  | { kind: 'present'; path: AttributePath }
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; filter: FilterNode }
  /** valuePath = attrPath "[" valFilter "]": the inner paths are relative to each value. */
  | { kind: 'valuePath'; path: AttributePath; filter: FilterNode };

/** PATH = attrPath / valuePath [subAttr] (RFC 7644 §3.5.2). */
export interface PatchPath extends AttributePath {
  /** Selects values of a multi-valued `attribute`; `subAttribute` then follows the "]". */
  valueFilter?: FilterNode;
}

/** The error kind of a syntax error: in a `filter` parameter, or in a PATCH `path`. */
export type SyntaxErrorType = 'invalidFilter' | 'invalidPath';

export function syntaxError(type: SyntaxErrorType, input: string, problem: string): ScimError {
  const what = type === 'invalidFilter' ? 'filter' : 'path';
  return badRequest(type, `Invalid ${what} ${JSON.stringify(input)}: ${problem}`);
}

export interface Token {
  kind: '(' | ')' | '[' | ']' | 'string' | 'word';
  /** The decoded value of a string; the text of anything else. */
  text: string;
  /** Zero-based offset in the input. */
  at: number;
}

const DELIMITERS = '()[]';
const WORD_END = /[\s()[\]"]/;

/**
 * Splits the input into brackets, strings and words (attribute paths, operators, keywords,
 * numbers). compValue strings are JSON strings (RFC 7644 §3.4.2.2 refers to RFC 7159), decoded
 * here with JSON's own escape rules.
 */
export function tokenize(input: string, type: SyntaxErrorType): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < input.length) {
    const char = input.charAt(at);
    if (/\s/.test(char)) {
      at += 1;
    } else if (DELIMITERS.includes(char)) {
      tokens.push({ kind: char as Token['kind'], text: char, at });
      at += 1;
    } else if (char === '"') {
      const end = closingQuote(input, at, type);
      tokens.push({ kind: 'string', text: decodeString(input, at, end, type), at });
      at = end + 1;
    } else {
      let end = at + 1;
      while (end < input.length && !WORD_END.test(input.charAt(end))) end += 1;
      tokens.push({ kind: 'word', text: input.slice(at, end), at });
      at = end;
    }
  }
  return tokens;
}

function closingQuote(input: string, open: number, type: SyntaxErrorType): number {
  for (let at = open + 1; at < input.length; at += 1) {
    const char = input.charAt(at);
    if (char === '\\') at += 1;
    else if (char === '"') return at;
  }
  throw syntaxError(type, input, `the string starting at position ${open} is not closed`);
}

function decodeString(input: string, open: number, close: number, type: SyntaxErrorType): string {
  try {
    return JSON.parse(input.slice(open, close + 1)) as string;
  } catch {
    throw syntaxError(type, input, `the string at position ${open} is not a valid JSON string`);
  }
}
