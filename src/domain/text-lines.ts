import { BridgeError } from './errors.js';

/**
 * A byte stream cut into lines (NDJSON, RFC 8259 texts one per line): LF ends a line, a CR before
 * it is dropped, and a UTF-8 byte-order mark at the very start is skipped. Cutting at LF bytes is
 * safe in UTF-8, where no byte of a multi-byte character is 0x0A. Lines come in batches (those a
 * chunk completes), each with its 1-based number; a line longer than `maxLineBytes` is refused.
 */
export interface TextLine {
  number: number;
  bytes: Buffer;
}

export async function* splitLines(
  chunks: AsyncIterable<Buffer | string>,
  maxLineBytes: number,
): AsyncGenerator<TextLine[]> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  for await (const raw of chunks) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    const lines: TextLine[] = [];
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end);
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      lines.push({ number: ++number, bytes: lineBytes(bytes, number) });
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      if (bytes.length > maxLineBytes) throw tooLong(number, maxLineBytes);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong(number + 1, maxLineBytes);
    }
    if (lines.length > 0) yield lines;
  }
  if (pendingBytes > 0) yield [{ number: number + 1, bytes: lineBytes(Buffer.concat(pending), number + 1) }];
}

/** A line without its CR; the first one also without a byte-order mark, however the bytes arrived. */
function lineBytes(bytes: Buffer, number: number): Buffer {
  const text =
    number === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  return withoutCr(text);
}

function withoutCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
}

function tooLong(line: number, max: number): BridgeError {
  return new BridgeError('invalid_input', `Line ${line} is longer than ${max} bytes`, {
    status: 400,
    problems: [`line ${line}: longer than ${max} bytes`],
  });
}
