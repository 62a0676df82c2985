import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotUpload } from '../../src/cli/snapshot-upload.js';
import { splitLines } from '../../src/domain/text-lines.js';

// Real: the line splitter an NDJSON body and file go through, fed chunk by chunk as sockets and
// files deliver them; the CLI's upload of a real file, read as the bridge would receive it.
async function* chunked(...chunks: Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield chunk;
}

async function linesOf(chunks: AsyncIterable<Buffer>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of splitLines(chunks, 1024)) out.push(...batch.map((l) => l.bytes.toString()));
  return out;
}

describe('NDJSON lines', () => {
  it('drops a byte-order mark however its three bytes arrive, and only on the first line', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const text = Buffer.from('{"user": {}}\r\n{"group": {}}\n');
    const whole = await linesOf(chunked(Buffer.concat([bom, text])));
    const split = await linesOf(chunked(bom.subarray(0, 1), bom.subarray(1), text));
    expect(whole).toEqual(['{"user": {}}', '{"group": {}}']);
    expect(split).toEqual(whole);
    const later = await linesOf(chunked(Buffer.from('a\n'), Buffer.concat([bom, Buffer.from('b\n')])));
    expect(later).toEqual(['a', `${bom.toString()}b`]);
  });
});

describe('scim-bridge sync --snapshot FILE.ndjson', () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-lines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function sent(text: string): Promise<{ lines: string[]; added: number }> {
    const path = join(dir, `s${Math.random().toString(36).slice(2)}.ndjson`);
    writeFileSync(path, text);
    const upload = await snapshotUpload(path, { dryRun: true, allowEmpty: false });
    let body = '';
    for await (const chunk of upload.body) body += chunk.toString();
    return { lines: body.split('\n').filter(Boolean), added: upload.linesAdded() };
  }

  it('sends a first line that merely mentions "options" as the item it is', async () => {
    const first = '{"user": {"id": "options", "userName": "options@example.com"}}';
    const { lines, added } = await sent(`${first}\n{"user": {"id": "u2", "userName": "b@x"}}\n`);
    expect(lines).toEqual(['{"options":{"dryRun":true,"allowEmpty":false}}', first, expect.any(String)]);
    expect(added).toBe(1);
  });

  it("merges the file's own options line under the command's flags", async () => {
    const { lines, added } = await sent('{"options": {"allowEmpty": true}}\n{"user": {"id": "u1"}}\n');
    expect(lines).toEqual(['{"options":{"allowEmpty":true,"dryRun":true}}', '{"user": {"id": "u1"}}']);
    expect(added).toBe(0);
  });
});
