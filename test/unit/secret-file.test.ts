import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSecret } from '../../src/ops/secret-file.js';

// Real files in a temporary directory; checkMs 0 looks at the file on every use.
describe('fileSecret', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-secret-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a change made between start-up and its creation, and changes within one clock tick', () => {
    const path = join(dir, 'token');
    writeFileSync(path, 'value-read-at-start-up\n');
    const initial = 'value-read-at-start-up';
    writeFileSync(path, 'value-written-just-after\n');
    const secret = fileSecret(path, initial, { checkMs: 0 });
    expect(secret()).toBe('value-written-just-after');
    writeFileSync(path, 'a-longer-value-written-at-once\n');
    expect(secret()).toBe('a-longer-value-written-at-once');
  });

  it('keeps the last value when the new contents are refused or the file is gone', () => {
    const path = join(dir, 'checked');
    writeFileSync(path, 'good-value-0001');
    const refusals: string[] = [];
    const secret = fileSecret(path, 'good-value-0001', {
      checkMs: 0,
      problem: (value) => (value.length < 10 ? 'too short' : undefined),
      onRefused: (problem) => refusals.push(problem),
    });
    writeFileSync(path, 'short');
    expect(secret()).toBe('good-value-0001');
    expect(refusals).toEqual(['too short']);
    rmSync(path);
    expect(secret()).toBe('good-value-0001');
  });
});
