import { pipeline } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { Request } from 'express';
import { BridgeError } from '../domain/errors.js';
import { feedNdjson, lineError, MAX_SNAPSHOT_ITEM_BYTES } from '../domain/snapshot-ndjson.js';
import type { SnapshotSink } from '../domain/snapshot-sink.js';
import { splitLines } from '../domain/text-lines.js';
import type { StartOptions } from '../sync/sync.service.js';
import { NDJSON_TYPES, NdjsonOptions } from './schemas/sync.schema.js';

/**
 * A `POST /admin/sync` body in NDJSON (SPEC §5.4: large snapshots), read as a stream: an optional
 * first line `{"options": {"dryRun": …, "allowEmpty": …, "linkOnly": …}}`, then one `{"user": {…}}` or
 * `{"group": {…}}` per line. It is never held whole: lines go to the sync's staging a batch at a
 * time. Over SNAPSHOT_STREAM_LIMIT_BYTES (after inflating gzip / deflate) → 413; a line that is
 * not one of these → 400 naming it.
 */

export function isNdjsonRequest(req: Request): boolean {
  return typeof req.is([...NDJSON_TYPES]) === 'string';
}

/** Hands the body's items to the sink; returns the options of its first line. */
export async function readNdjsonSnapshot(
  req: Request,
  sink: SnapshotSink,
  limitBytes: number,
): Promise<StartOptions> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  let options: StartOptions = { dryRun: false };
  await feedNdjson(splitLines(limited(body(req), limitBytes), MAX_SNAPSHOT_ITEM_BYTES), sink, (raw, line) => {
    options = parseOptions(raw, line);
  });
  return options;
}

function parseOptions(raw: unknown, line: number): StartOptions {
  const parsed = NdjsonOptions.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ['options', ...(issue?.path ?? [])].join('.');
    throw lineError(line, `${path}: ${issue?.message ?? 'invalid'}`);
  }
  const { dryRun = false, allowEmpty = false, linkOnly = false } = parsed.data;
  return { dryRun, allowEmpty, linkOnly };
}

/** The request's bytes, inflated when it says gzip or deflate. */
function body(req: Request): AsyncIterable<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return req;
  if (encoding !== 'gzip' && encoding !== 'deflate')
    throw new BridgeError(
      'unsupported_media_type',
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported`,
    );
  const inflate = encoding === 'gzip' ? createGunzip() : createInflate();
  // pipeline, not pipe: a client that goes away mid-body fails the inflater, and so the read.
  pipeline(req, inflate, () => undefined);
  return (async function* () {
    try {
      for await (const chunk of inflate) yield chunk as Buffer;
    } catch (error) {
      throw new BridgeError('invalid_input', 'The body does not inflate', { status: 400, cause: error });
    }
  })();
}

async function* limited(chunks: AsyncIterable<Buffer>, limitBytes: number): AsyncGenerator<Buffer> {
  let read = 0;
  for await (const chunk of chunks) {
    read += chunk.length;
    if (read > limitBytes) throw tooLarge(limitBytes);
    yield chunk;
  }
}

function tooLarge(limitBytes: number): BridgeError {
  return new BridgeError(
    'payload_too_large',
    `The snapshot is over SNAPSHOT_STREAM_LIMIT_BYTES (${limitBytes} bytes); nothing was changed`,
  );
}
