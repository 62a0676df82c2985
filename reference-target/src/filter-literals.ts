/**
 * What the filter text goes through before scim2-parse-filter reads it (target-filter.ts). The
 * library reads the grammar of RFC 7644 §3.4.2.2 well except for literals and two rules of the
 * grammar it is lenient about; each work-around below cites what it restores.
 */

/** The filter with its literals taken out, and the literals in the order they were found. */
export interface LiftedFilter {
  /** The filter text with every string and negative number replaced by `"<its index>"`. */
  skeleton: string;
  literals: (string | number)[];
}

type Fail = (problem: string) => never;

/** Characters that continue a word in the library's tokenizer (an attribute path, a keyword, a number). */
const WORD = String.raw`[\w.:/%$-]`;
/**
 * RFC 7644 §3.4.2.2: a compValue number follows JSON (RFC 7159 §6). The library's tokenizer reads a
 * negative number only at the very end of the filter ("n gt -1)" is refused), so such numbers are
 * taken out with the strings.
 */
const NEGATIVE_NUMBER = new RegExp(
  String.raw`(?<!${WORD})-(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[\s)\]]|$)`,
  'g',
);
/** The literals true, false and null in any case, as the target has always read them. */
const KEYWORD_LITERAL = new RegExp(String.raw`(?<!${WORD})(?:true|false|null)(?!${WORD})`, 'gi');
const OPERATOR = String.raw`(?:pr|eq|ne|co|sw|ew|gt|ge|lt|le)(?!${WORD})`;
/** `not` directly followed by an operator is an attribute named "not" (ATTRNAME = ALPHA *(nameChar)). */
const NOT_AS_ATTRIBUTE = new RegExp(String.raw`(?<!${WORD})not(?=\s+${OPERATOR})`, 'gi');
/** Any other `not` is the operator, which RFC 7644 §3.4.2.2 writes `"not" "(" valFilter ")"`. */
const NOT_WITHOUT_PARENTHESIS = new RegExp(String.raw`(?<!${WORD})not(?!${WORD})(?!\s*\()`, 'i');
/** The core schema URN, which names the same attribute (RFC 7644 §3.10) and is dropped after parsing. */
const CORE_QUALIFIER = 'urn:ietf:params:scim:schemas:core:2.0:';

/**
 * Takes the string literals out of the filter, decoded as JSON strings (RFC 7644 §3.4.2.2 takes
 * compValue from RFC 7159). The library keeps `\"` but doubles every other backslash before it
 * decodes, so `"a\\b"` would come out with two backslashes and `"\\"` not at all; handing it
 * placeholders without backslashes sidesteps that.
 */
export function liftLiterals(text: string, fail: Fail): LiftedFilter {
  const literals: (string | number)[] = [];
  let skeleton = '';
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('"', at);
    if (open === -1) {
      skeleton += text.slice(at);
      break;
    }
    const close = closingQuote(text, open, fail);
    skeleton += `${text.slice(at, open)}"${literals.length}"`;
    literals.push(decodeString(text.slice(open, close + 1), open, fail));
    at = close + 1;
  }
  skeleton = skeleton.replace(NEGATIVE_NUMBER, (number) => {
    literals.push(Number(number));
    return `"${literals.length - 1}"`;
  });
  return { skeleton: adjustGrammar(skeleton, fail), literals };
}

/** The library's message with the placeholders it quotes put back as the client wrote them. */
export function withLiterals(message: string, literals: readonly (string | number)[]): string {
  return message.replace(/"(\d+)"/g, (placeholder, index: string) => {
    const literal = literals[Number(index)];
    return literal === undefined ? placeholder : JSON.stringify(literal);
  });
}

function adjustGrammar(skeleton: string, fail: Fail): string {
  const adjusted = skeleton
    .replace(KEYWORD_LITERAL, (word) => word.toLowerCase())
    // The library takes every `not` for the operator.
    .replace(NOT_AS_ATTRIBUTE, (word) => `${CORE_QUALIFIER}${word}`);
  // The library also reads `not userName eq "a"`, without the parentheses.
  if (NOT_WITHOUT_PARENTHESIS.test(adjusted)) fail('"not" must be followed by a filter in parentheses');
  // valuePath = attrPath "[" valFilter "]" ends there in a filter; the library reads a following
  // ".sub op value" as a second, independent condition.
  if (adjusted.includes('].')) fail('a value filter cannot be followed by a sub-attribute in a filter');
  return adjusted;
}

function closingQuote(text: string, open: number, fail: Fail): number {
  for (let at = open + 1; at < text.length; at += 1) {
    const char = text.charAt(at);
    if (char === '\\') at += 1;
    else if (char === '"') return at;
  }
  return fail(`the string starting at position ${open} is not closed`);
}

function decodeString(literal: string, open: number, fail: Fail): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return fail(`the string at position ${open} is not a valid JSON string`);
  }
}
