/**
 * The part of a JSON byte stream being scanned (json-snapshot-stream.ts): the current chunk and
 * whatever of the previous ones is still needed (from `mark`, the start of the value being cut
 * out). Positions in messages are absolute: byte offset, line and column of the whole stream.
 *
 * A value kept across chunks grows in a buffer of its own whose capacity doubles, so that one item
 * spanning n chunks costs copies linear in its size (`copiedBytes` counts them), not a copy of
 * everything kept so far at each chunk; and it may not outgrow `maxKept` bytes (checkKept, after
 * each chunk: the window then holds at most `maxKept` and a chunk).
 */

export interface StreamPosition {
  /** 0-based byte offset. */
  byte: number;
  /** 1-based. */
  line: number;
  /** 1-based, in bytes from the start of the line. */
  column: number;
}

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';

  constructor(
    message: string,
    readonly position: StreamPosition,
    /** The element that did not parse, when the error is in one: JSON.parse found it wrong. */
    readonly itemText?: string,
  ) {
    super(message);
  }
}

/** A value kept across chunks outgrew the window's `maxKept` bytes. */
export class ValueTooLarge extends Error {
  override readonly name = 'ValueTooLarge';

  constructor(readonly maxBytes: number) {
    super(`a value larger than ${maxBytes} bytes`);
  }
}

export class ByteWindow {
  buf: Buffer = Buffer.alloc(0);
  /** The cursor, in `buf`. */
  at = 0;
  /** The first byte to keep when reading more (-1: nothing before the cursor). */
  mark = -1;
  /** Bytes copied so far to keep values across chunks. */
  copiedBytes = 0;
  /** `buf` is `store` from `start`; the bytes after it are free only when `owned` (not the source's). */
  private store: Buffer = this.buf;
  private start = 0;
  private owned = false;
  /** Absolute offset of buf[0]. */
  private base = 0;
  /** Line of buf[0], and the absolute offset where that line starts. */
  private line = 1;
  private lineStart = 0;
  private ended = false;

  constructor(
    private readonly source: AsyncIterator<Buffer>,
    /** The most bytes a value being cut out (from `mark`) may take. */
    private readonly maxKept = Number.POSITIVE_INFINITY,
  ) {}

  /** Appends the next chunk, dropping what is before the mark (or the cursor); false at the end. */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.source.next();
    if (next.done === true) {
      this.ended = true;
      return false;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
    this.drop(this.mark === -1 ? this.at : Math.min(this.mark, this.at));
    this.append(chunk);
    return true;
  }

  /**
   * Keeps `chunk` after `buf`: in the room left in an owned store, else in a new one of twice
   * what it must hold (at most `maxKept` and a chunk), so that each kept byte is copied a bounded
   * number of times. A chunk with nothing kept before it is used as it is, never written to.
   */
  private append(chunk: Buffer): void {
    const kept = this.buf.length;
    if (kept === 0) {
      this.store = chunk;
      this.start = 0;
      this.owned = false;
      this.buf = chunk;
      return;
    }
    const needed = kept + chunk.length;
    const end = this.start + kept;
    if (!this.owned || end + chunk.length > this.store.length) {
      const size = Math.max(needed, Math.min(2 * needed, this.maxKept + chunk.length));
      const store = Buffer.allocUnsafe(size);
      this.buf.copy(store, 0);
      this.copiedBytes += kept;
      this.store = store;
      this.start = 0;
      this.owned = true;
    }
    chunk.copy(this.store, this.start + kept);
    this.copiedBytes += chunk.length;
    this.buf = this.store.subarray(this.start, this.start + needed);
  }

  /** Refuses a value being cut out (from `mark`) that reaches `upTo` beyond `maxKept` bytes. */
  checkKept(upTo: number): void {
    if (this.mark !== -1 && upTo - this.mark > this.maxKept) throw new ValueTooLarge(this.maxKept);
  }

  /** The byte at the cursor after whitespace, reading more as needed; undefined at the end. */
  async peek(): Promise<number | undefined> {
    for (;;) {
      const buf = this.buf;
      while (this.at < buf.length && isSpace(buf[this.at] ?? 0)) this.at++;
      if (this.at < buf.length) return buf[this.at];
      this.mark = -1;
      if (!(await this.more())) return undefined;
    }
  }

  async skipByteOrderMark(): Promise<void> {
    while (this.buf.length < 3 && (await this.more()));
    if (this.buf[0] === 0xef && this.buf[1] === 0xbb && this.buf[2] === 0xbf) this.at = 3;
  }

  position(at: number): StreamPosition {
    let line = this.line;
    let lineStart = this.lineStart;
    const upTo = Math.min(at, this.buf.length);
    for (let i = this.buf.indexOf(0x0a); i !== -1 && i < upTo; i = this.buf.indexOf(0x0a, i + 1)) {
      line++;
      lineStart = this.base + i + 1;
    }
    const byte = this.base + at;
    return { byte, line, column: byte - lineStart + 1 };
  }

  syntax(message: string): JsonSyntaxError {
    return new JsonSyntaxError(message, this.position(this.at));
  }

  unexpected(wanted: string): JsonSyntaxError {
    const byte = this.buf[this.at];
    const found = byte === undefined ? 'the end' : `"${String.fromCharCode(byte)}"`;
    return new JsonSyntaxError(
      `expected ${wanted} at byte ${this.base + this.at}, found ${found}`,
      this.position(this.at),
    );
  }

  private drop(keep: number): void {
    if (keep <= 0) return;
    const gone = this.buf.subarray(0, keep);
    for (let i = gone.indexOf(0x0a); i !== -1; i = gone.indexOf(0x0a, i + 1)) {
      this.line++;
      this.lineStart = this.base + i + 1;
    }
    this.buf = this.buf.subarray(keep);
    this.start += keep;
    this.base += keep;
    this.at -= keep;
    if (this.mark !== -1) this.mark -= keep;
  }
}

/** Where a value scan stands when a chunk ends inside the value. */
export interface ScanState {
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** A number or literal: it ends at a delimiter, or at the end of the stream. */
  scalar: boolean;
}

export function newScan(first: number): ScanState {
  return {
    depth: 0,
    inString: false,
    escaped: false,
    scalar: first !== 0x22 && first !== 0x7b && first !== 0x5b,
  };
}

/**
 * Scans a value from `at`: strings and brackets are followed, anything else is a scalar ending at a
 * delimiter. Returns the index just after the value, or -1 when the buffer ends first (the state
 * then resumes the scan on the next chunk).
 */
export function scanValue(buf: Buffer, at: number, state: ScanState): number {
  let i = at;
  const n = buf.length;
  if (state.scalar) {
    while (i < n && !isDelimiter(buf[i] ?? 0)) i++;
    return i < n ? i : -1;
  }
  while (i < n) {
    const byte = buf[i++] ?? 0;
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (byte === 0x5c) state.escaped = true;
      else if (byte === 0x22) {
        state.inString = false;
        if (state.depth === 0) return i;
      }
    } else if (byte === 0x22) state.inString = true;
    else if (byte === 0x7b || byte === 0x5b) state.depth++;
    else if ((byte === 0x7d || byte === 0x5d) && --state.depth === 0) return i;
  }
  return -1;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function isDelimiter(byte: number): boolean {
  return isSpace(byte) || byte === 0x2c || byte === 0x5d || byte === 0x7d;
}
