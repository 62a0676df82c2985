import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { isBridgeError, type BridgeError } from '../../src/domain/errors.js';
import type { DirectorySource } from '../../src/sources/directory/directory-source.js';
import { buildDirectorySource as createDirectorySource, CATALOG } from '../../src/sources/registry.js';
import { FileDirectorySource } from '../../src/sources/directory/file/file.source.js';

/** The file source on real files in a temporary directory; and the demo directory, read by it. */

const DEMO_FILE = fileURLToPath(new URL('../../config/demo-directory.json', import.meta.url));

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scim-bridge-directory-file-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fileSource(path: string): DirectorySource {
  const config = loadConfig(
    {
      REDIS_URL: 'redis://127.0.0.1:9',
      TARGET_URL: 'http://127.0.0.1:9',
      TARGET_TOKEN: 'test-target-token-0001',
      DIRECTORY_SOURCE: 'file',
      DIRECTORY_FILE: path,
    },
    CATALOG,
  );
  const source = createDirectorySource(config.directory);
  if (source === undefined) throw new Error('no source');
  return source;
}

async function readError(source: DirectorySource): Promise<BridgeError> {
  const error: unknown = await source.read().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

const ADA = { id: 'u-1', userName: 'ada@example.com', name: { givenName: 'Ada', familyName: 'Lovelace' } };

describe('file source', () => {
  it('reads the file again at every read', async () => {
    const path = join(dir, 'directory.json');
    const source = fileSource(path);
    writeFileSync(path, JSON.stringify({ users: [ADA], groups: [] }));
    expect(await source.read()).toEqual({ users: [{ ...ADA, active: true }], groups: [] });
    writeFileSync(
      path,
      JSON.stringify({ users: [ADA], groups: [{ id: 'g-1', displayName: 'Engineering', members: ['u-1'] }] }),
    );
    expect((await source.read()).groups).toEqual([
      { id: 'g-1', displayName: 'Engineering', members: ['u-1'] },
    ]);
  });

  it('accepts a byte-order mark', async () => {
    const path = join(dir, 'bom.json');
    writeFileSync(path, `\uFEFF${JSON.stringify({ users: [ADA], groups: [] })}`);
    expect((await fileSource(path).read()).users).toHaveLength(1);
  });

  it('reports a missing file as source_unavailable', async () => {
    const path = join(dir, 'missing.json');
    const error = await readError(fileSource(path));
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: true });
    expect(error.message).toBe(`Cannot read the directory file ${path}: no such file`);
  });

  it('reports a file that is not JSON as source_invalid', async () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"users": [');
    const error = await readError(fileSource(path));
    expect(error.code).toBe('source_invalid');
    expect(error.message).toMatch(new RegExp(`^The directory file ${path} is not JSON: `));
  });

  it('reports an invalid snapshot with every problem, by position', async () => {
    const path = join(dir, 'invalid.json');
    const users = [ADA, { id: 'u-2', userName: 'ADA@example.com' }, { id: 'u-3' }];
    writeFileSync(
      path,
      JSON.stringify({ users, groups: [{ id: 'g-1', displayName: 'G', members: ['u-9'] }] }),
    );
    const error = await readError(fileSource(path));
    expect(error).toMatchObject({ code: 'source_invalid', retryable: false });
    expect(error.message).toBe(`The directory file ${path} gave an invalid snapshot: 3 problems`);
    expect(error.problems).toEqual([
      'users[1].userName: duplicate of users[0] (case-insensitive)',
      'users[2].userName: required',
      'groups[0].members[0]: unknown user "u-9"',
    ]);
  });
});

describe('file source, reading the file item by item', () => {
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads pretty-printed files and skips other top-level members, whatever their order', async () => {
    const text = JSON.stringify(
      {
        version: { of: ['the', 'export'] },
        groups: [{ id: 'g-1', displayName: 'A "quoted" \\ name', members: ['u-1'] }],
        users: [ADA],
        note: null,
      },
      null,
      2,
    );
    const snapshot = await fileSource(write('pretty.json', text)).read();
    expect(snapshot.users.map((u) => u.id)).toEqual(['u-1']);
    expect(snapshot.groups[0]?.displayName).toBe('A "quoted" \\ name');
  });

  it('lists top-level problems as for any snapshot', async () => {
    const cases: [string, string[]][] = [
      ['[]', ['snapshot: not an object']],
      ['{"users": {}, "extra": 1}', ['users: not an array', 'groups: required']],
      ['{}', ['users: required', 'groups: required']],
    ];
    for (const [text, problems] of cases) {
      const error = await readError(fileSource(write('top.json', text)));
      expect(error.code).toBe('source_invalid');
      expect(error.problems).toEqual(problems);
    }
  });

  it('refuses malformed JSON, naming the item or the byte where it is', async () => {
    const cases: [string, RegExp][] = [
      ['{"users": [{"id": "u-1", "userName": "a@example.com"}, {"id": }], "groups": []}', /: users\[1\]: /],
      ['{"users": [], "groups": [],}', /expected a member name at byte 27/],
      ['{"users": [] "groups": []}', /expected "," or "}" at byte 13/],
      ['{"users": [1, 2,], "groups": []}', /users\[2\]: /],
      ['{"users": [], "groups": []} []', /expected the end of the file at byte 28/],
      ['{"users": [], "groups": [], "users": []}', /"users" appears twice/],
      ['{"users": ["unterminated', /the file ends inside/],
      ['', /is not JSON/],
    ];
    for (const [text, message] of cases) {
      const error = await readError(fileSource(write('broken.json', text)));
      expect(error.code).toBe('source_invalid');
      expect(error.message).toMatch(message);
    }
  });
});

describe('config/demo-directory.json', () => {
  it('is a valid snapshot of about 1,000 users and 50 groups, awkward names included', async () => {
    const snapshot = await fileSource(DEMO_FILE).read();
    expect(snapshot.users.length).toBeGreaterThanOrEqual(950);
    expect(snapshot.users.length).toBeLessThanOrEqual(1050);
    expect(snapshot.groups).toHaveLength(50);
    const names = snapshot.users.map((u) => `${u.name?.givenName ?? ''} ${u.name?.familyName ?? ''}`);
    expect(names).toContain('Zoë Ångström');
    expect(names).toContain('José Núñez');
    expect(names.some((n) => n.includes('"') && n.includes('\\'))).toBe(true);
    expect(snapshot.users.some((u) => u.userName.split('@')[0]?.includes('+'))).toBe(true);
    expect(snapshot.users.filter((u) => !u.active).length).toBeGreaterThanOrEqual(1);
  });
});

describe('file source, read as a stream in chunks of any size', () => {
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const JOSE = {
    id: 'u-2',
    userName: 'josé@example.com',
    name: { givenName: 'José "Pepe"', familyName: 'Núñez \\ Ω' },
    emails: [{ value: 'josé@example.com', primary: true }],
  };

  it('reads items split across chunks, multi-byte characters and escapes included', async () => {
    const text = JSON.stringify(
      {
        groups: [{ id: 'g-1', displayName: 'Zoë "Ω" \\ Ångström', members: ['u-1', 'u-2'] }],
        note: { of: ['the', 'export', { nested: [1, 2, '}]'] }] },
        users: [ADA, JOSE],
      },
      null,
      2,
    );
    const path = write('chunks.json', `\uFEFF${text}`);
    const whole = await fileSource(path).read();
    expect(whole.users.map((u) => u.name?.familyName)).toEqual(['Lovelace', 'Núñez \\ Ω']);
    for (const highWaterMark of [1, 2, 3, 5, 7, 64])
      expect(await new FileDirectorySource(path, { highWaterMark }).read()).toEqual(whole);
  });

  it('reads NDJSON, by its extension or by its first line, in any chunk size', async () => {
    const lines = [
      { user: ADA },
      { group: { id: 'g-1', displayName: 'G', members: ['u-1', 'u-2'] } },
      { user: JOSE },
    ];
    const text = `${lines.map((l) => JSON.stringify(l)).join('\r\n')}\n\n`;
    const expected = await fileSource(write('lines.ndjson', text)).read();
    expect(expected.users.map((u) => u.id)).toEqual(['u-1', 'u-2']);
    expect(expected.groups[0]?.members).toEqual(['u-1', 'u-2']);
    const sniffed = write('export.txt', text);
    for (const highWaterMark of [1, 4, 64])
      expect(await new FileDirectorySource(sniffed, { highWaterMark }).read()).toEqual(expected);
  });

  it('names what is wrong in an NDJSON file by line', async () => {
    const text = `${JSON.stringify({ user: ADA })}\n${JSON.stringify({ user: { id: 'u-9' } })}\n{"user": }\n`;
    const invalid = await readError(new FileDirectorySource(write('bad.ndjson', text), { highWaterMark: 3 }));
    expect(invalid).toMatchObject({ code: 'source_invalid' });
    expect(invalid.message).toMatch(/is not a snapshot: line 3: not JSON/);
    const items = `${JSON.stringify({ user: ADA })}\n${JSON.stringify({ user: { id: 'u-9' } })}\n`;
    const problems = await readError(fileSource(write('items.ndjson', items)));
    expect(problems.problems).toEqual(['line 2: users[1].userName: required']);
  });

  it('names malformed JSON by the item or byte whatever the chunk size', async () => {
    const path = write(
      'broken.json',
      '{"users": [{"id": "u-1", "userName": "a@example.com"}, {"id": }], "groups": []}',
    );
    for (const highWaterMark of [1, 3, 64]) {
      const error = await readError(new FileDirectorySource(path, { highWaterMark }));
      expect(error.message).toMatch(/is not JSON: users\[1\]: /);
    }
    const trailing = write('trailing.json', '{"users": [], "groups": []} []');
    expect((await readError(new FileDirectorySource(trailing, { highWaterMark: 2 }))).message).toMatch(
      /expected the end of the file at byte 28/,
    );
  });
});
