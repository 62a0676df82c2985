/**
 * Where a text stops being JSON (RFC 8259), as a line and a column. JSON.parse names the offset for
 * some errors only ("… at position 7"), and quotes the text for the others, so the text is scanned.
 */
export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  /** What stands there: `"}"`, or undefined at the end of the text. */
  found: string | undefined;
}

/** The first syntax error of a text, or undefined when it is JSON (or nests too deep to scan). */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const offset = new JsonScanner(text).firstError();
  if (offset === undefined) return undefined;
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  const code = text.codePointAt(offset);
  return {
    line,
    column: offset - lineStart + 1,
    found: code === undefined ? undefined : JSON.stringify(String.fromCodePoint(code)),
  };
}

const WHITESPACE = /[ \t\n\r]*/y;
const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** A string up to its closing quote: any character from U+0020 but `"` and `\`, or an escape. */
const STRING_BODY = /"(?:[\x20\x21\x23-\x5b\x5d-\uffff]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;

/** A recursive-descent recognizer that stops at the first character that cannot continue the text. */
class JsonScanner {
  private at = 0;

  constructor(private readonly text: string) {}

  firstError(): number | undefined {
    try {
      if (this.value() && this.peek() === undefined) return undefined;
    } catch {
      return undefined; // nested deeper than the stack allows: no position to give
    }
    return this.at;
  }

  private value(): boolean {
    const next = this.peek();
    if (next === '{' || next === '[') return this.container(next === '{' ? '}' : ']');
    if (next === '"') return this.string();
    return this.match(LITERAL);
  }

  private container(close: '}' | ']'): boolean {
    this.at += 1;
    if (this.peek() === close) return this.advance();
    for (;;) {
      if ((close === '}' && !this.memberName()) || !this.value()) return false;
      const next = this.peek();
      if (next === close) return this.advance();
      if (next !== ',') return false;
      this.advance();
    }
  }

  /** An object member's name and the colon after it. */
  private memberName(): boolean {
    return this.peek() === '"' && this.string() && this.peek() === ':' && this.advance();
  }

  private string(): boolean {
    this.match(STRING_BODY);
    return this.text[this.at] === '"' && this.advance();
  }

  /** Skips whitespace; the character after it. */
  private peek(): string | undefined {
    this.match(WHITESPACE);
    return this.text[this.at];
  }

  private advance(): true {
    this.at += 1;
    return true;
  }

  private match(pattern: RegExp): boolean {
    pattern.lastIndex = this.at;
    if (!pattern.test(this.text)) return false;
    this.at = pattern.lastIndex;
    return true;
  }
}
