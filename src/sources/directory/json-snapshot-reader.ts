import { SnapshotValidator, type SnapshotCheck } from '../../domain/snapshot.js';
import { collectGarbage } from '../../ops/memory.js';

/**
 * Reads a snapshot file's bytes item by item: the top-level object is scanned for its `users` and
 * `groups` arrays, and each element is parsed and validated on its own, then dropped. Memory stays
 * near the file's bytes plus the validated snapshot — never the whole text as a string (twice the
 * bytes once a name has an accent) nor the whole parsed document beside its validated copy.
 *
 * The scanner only finds where values start and end (strings and nesting); JSON.parse checks each
 * piece, so malformed JSON is still refused, named by where it was found. A document whose top
 * level is not an object returns undefined: the caller parses it whole, for the usual problems.
 */

const LISTS = new Set(['users', 'groups']);

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

export function readSnapshotBytes(bytes: Buffer): SnapshotCheck | undefined {
  const scanner = new Scanner(bytes);
  scanner.skipByteOrderMark();
  if (scanner.peek() !== 0x7b /* { */) return undefined;
  const validator = new SnapshotValidator();
  const seen = new Set<string>();
  scanner.members((key) => {
    if (!LISTS.has(key)) return void scanner.value(key);
    if (seen.has(key)) throw new JsonSyntaxError(`"${key}" appears twice`);
    seen.add(key);
    if (scanner.peek() !== 0x5b /* [ */) {
      scanner.value(key);
      return validator.addProblem([key], 'not an array');
    }
    let count = 0;
    scanner.elements(key, (item) => {
      if (key === 'users') validator.addUser(item);
      else validator.addGroup(item);
      // Each item's parse leaves garbage; collected every so often, the heap stays near its live size.
      if (++count % 20_000 === 0) collectGarbage();
    });
  });
  scanner.expectEnd();
  for (const key of LISTS) if (!seen.has(key)) validator.addProblem([key], 'required');
  return validator.finish();
}

class Scanner {
  private at = 0;

  constructor(private readonly bytes: Buffer) {}

  peek(): number | undefined {
    this.skipSpace();
    return this.bytes[this.at];
  }

  skipByteOrderMark(): void {
    if (this.bytes[0] === 0xef && this.bytes[1] === 0xbb && this.bytes[2] === 0xbf) this.at = 3;
  }

  /** Walks the members of the object at the cursor; `onMember` leaves the cursor after the value. */
  members(onMember: (key: string) => void): void {
    this.expect(0x7b);
    if (this.peek() === 0x7d /* } */) return void this.at++;
    for (;;) {
      if (this.peek() !== 0x22 /* " */) throw this.unexpected('a member name');
      const start = this.at;
      this.skipString();
      const key = JSON.parse(this.bytes.toString('utf8', start, this.at)) as string;
      this.expect(0x3a /* : */);
      this.skipSpace();
      onMember(key);
      if (this.next([0x2c, 0x7d]) === 0x7d) return;
    }
  }

  /** Parses each element of the array at the cursor and hands it over. */
  elements(key: string, onElement: (value: unknown) => void): void {
    this.expect(0x5b);
    if (this.peek() === 0x5d /* ] */) return void this.at++;
    for (let index = 0; ; index++) {
      this.skipSpace();
      onElement(this.value(`${key}[${index}]`));
      if (this.next([0x2c, 0x5d]) === 0x5d) return;
    }
  }

  expectEnd(): void {
    if (this.peek() !== undefined) throw this.unexpected('the end of the file');
  }

  /** Parses the value at the cursor (checking its syntax) and returns it; `label` names it in errors. */
  value(label: string): unknown {
    const start = this.at;
    this.skipRaw();
    try {
      return JSON.parse(this.bytes.toString('utf8', start, this.at)) as unknown;
    } catch (error) {
      throw new JsonSyntaxError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Moves past one value without parsing it: strings and brackets are followed, the rest is scalars. */
  private skipRaw(): void {
    const first = this.bytes[this.at];
    if (first === 0x22) return this.skipString();
    if (first !== 0x7b && first !== 0x5b) {
      while (this.at < this.bytes.length && !isDelimiter(this.bytes[this.at] ?? 0)) this.at++;
      return;
    }
    let depth = 0;
    do {
      const byte = this.bytes[this.at];
      if (byte === undefined) throw new JsonSyntaxError('the file ends inside a value');
      if (byte === 0x22) {
        this.skipString();
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) depth--;
      this.at++;
    } while (depth > 0);
  }

  /** The cursor is on an opening quote; UTF-8 continuation bytes are never `"` or `\`. */
  private skipString(): void {
    for (this.at++; this.at < this.bytes.length; this.at++) {
      const byte = this.bytes[this.at];
      if (byte === 0x5c) this.at++;
      else if (byte === 0x22) return void this.at++;
    }
    throw new JsonSyntaxError('the file ends inside a string');
  }

  private expect(byte: number): void {
    if (this.peek() !== byte) throw this.unexpected(`"${String.fromCharCode(byte)}"`);
    this.at++;
  }

  private next(allowed: readonly number[]): number {
    const byte = this.peek();
    if (byte === undefined || !allowed.includes(byte)) {
      throw this.unexpected(allowed.map((b) => `"${String.fromCharCode(b)}"`).join(' or '));
    }
    this.at++;
    return byte;
  }

  private skipSpace(): void {
    while (isSpace(this.bytes[this.at] ?? 0)) this.at++;
  }

  private unexpected(wanted: string): JsonSyntaxError {
    const found =
      this.at < this.bytes.length ? `"${String.fromCharCode(this.bytes[this.at] ?? 0)}"` : 'the end';
    return new JsonSyntaxError(`expected ${wanted} at byte ${this.at}, found ${found}`);
  }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function isDelimiter(byte: number): boolean {
  return isSpace(byte) || byte === 0x2c || byte === 0x5d || byte === 0x7d;
}
