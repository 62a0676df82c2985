import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sectionOf } from '../../src/config/catalog.js';
import { loadConfig, type Env } from '../../src/config/load-config.js';
import { settingsFor } from '../../src/config/settings.js';
import { policySchema } from '../../src/domain/identity-policy.js';
import { CATALOG } from '../../src/sources/registry.js';

/**
 * config/default.yaml is written by hand, for its comments; these tests hold it to the schema the
 * input registry builds (src/sources/registry.ts, src/config/schema.ts): the same settings, each
 * input kind's defaults exactly, and each variable named in the comment above its setting. Real:
 * the file, loadConfig and the registry; a CONFIG_FILE is given from memory.
 */

type Tree = Record<string, unknown>;

const DEFAULTS = readFileSync(new URL('../../config/default.yaml', import.meta.url), 'utf8');
const raw = parse(DEFAULTS) as Tree;
const ENV: Env = {
  REDIS_URL: 'redis://redis:6379/0',
  TARGET_URL: 'https://acme.example.com',
  TARGET_TOKEN: 'platform-token-0123456789',
};

function load(env: Env, files: Record<string, string> = {}) {
  return loadConfig(env, CATALOG, { readFile: (path) => files[path] ?? readFileSync(path, 'utf8') });
}

const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Keys one tree has and the other lacks, by path; trees are compared down to the file's own leaves
 * (`deprovisionLimit: '500,20%'` is a leaf of the file, an object once parsed).
 */
function keyDifferences(file: unknown, loaded: unknown, path: string[] = []): string[] {
  if (!isTree(file) || !isTree(loaded)) return [];
  const keys = new Set([...Object.keys(file), ...Object.keys(loaded)]);
  return [...keys].flatMap((key) => {
    const at = [...path, key].join('.');
    if (!(key in file)) return [`${at}: a setting missing from config/default.yaml`];
    if (!(key in loaded)) return [`${at}: in config/default.yaml but no setting`];
    return keyDifferences(file[key], loaded[key], [...path, key]);
  });
}

/** The comment lines right above each key of a YAML file, joined, by the key's dotted path. */
function commentsByPath(text: string): Map<string, string> {
  const comments = new Map<string, string>();
  const stack: { indent: number; key: string }[] = [];
  let above: string[] = [];
  for (const line of text.split('\n')) {
    const comment = /^\s*#(.*)$/.exec(line);
    if (comment) {
      above.push((comment[1] ?? '').trim());
      continue;
    }
    const key = /^( *)([A-Za-z_][\w-]*):/.exec(line);
    if (key) {
      const indent = key[1]?.length ?? 0;
      while ((stack.at(-1)?.indent ?? -1) >= indent) stack.pop();
      stack.push({ indent, key: key[2] ?? '' });
      comments.set(stack.map((s) => s.key).join('.'), above.join(' '));
    }
    above = [];
  }
  return comments;
}

/** The variables a comment names in brackets: `[TARGET_TOKEN, TARGET_TOKEN_FILE]`. */
function bracketed(comment: string): string[] {
  return [...comment.matchAll(/\[([A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*)\]/g)].flatMap((m) =>
    (m[1] ?? '').split(', '),
  );
}

describe('config/default.yaml', () => {
  const loaded = load(ENV) as unknown as Tree;
  const directory = raw.directory as Tree;

  it('holds every setting the schema knows, and no other', () => {
    expect(keyDifferences(raw, loaded)).toEqual([]);
  });

  it.each(CATALOG.inputs.map((section) => [section.key, section] as const))(
    'gives the %s section exactly its declaration’s defaults',
    (key, section) => {
      const defaults = section.shape.parse({});
      expect(raw[key]).toEqual(defaults);
      expect(sectionOf(section, loaded)).toEqual(defaults);
    },
  );

  it.each(CATALOG.directorySources.map((source) => [source.key, source] as const))(
    'gives directory.%s exactly its source kind’s defaults',
    (key, source) => {
      const defaults = source.shape.parse({});
      expect(directory[key]).toEqual(defaults);
      expect(sectionOf(source, loaded.directory as Tree)).toEqual(defaults);
    },
  );

  it('gives the directory the default scope and mapping', () => {
    expect({ scope: directory.scope, mapping: directory.mapping }).toEqual(policySchema.parse({}));
  });

  it('gives a further directory the first one’s cadence, scope and mapping when it sets none', () => {
    const file = 'directories: [{name: second, source: file, file: {path: /srv/second.json}}]\n';
    const config = load({ ...ENV, CONFIG_FILE: '/etc/bridge.yaml' }, { '/etc/bridge.yaml': file });
    expect(config.directories[0]).toMatchObject({
      deltaSeconds: directory.deltaSeconds,
      scope: directory.scope,
      mapping: directory.mapping,
    });
  });

  it('names the variable of each setting in brackets above it (its _FILE too for a secret)', () => {
    const comments = commentsByPath(DEFAULTS);
    const problems = settingsFor(CATALOG).flatMap((setting) => {
      const path = setting.path.join('.');
      const comment = comments.get(path);
      if (comment === undefined) return [`${path} (${setting.env}): not in config/default.yaml`];
      const expected = setting.secret ? [setting.env, `${setting.env}_FILE`] : [setting.env];
      const named = bracketed(comment);
      return isDeepStrictEqual(named, expected) ? [] : [`${path}: names [${named}], not [${expected}]`];
    });
    expect(problems).toEqual([]);
  });

  it('names no variable above a setting that has none', () => {
    const paths = new Set(settingsFor(CATALOG).map((setting) => setting.path.join('.')));
    const stray = [...commentsByPath(DEFAULTS)].filter(
      ([path, comment]) => !paths.has(path) && bracketed(comment).length > 0,
    );
    expect(stray).toEqual([]);
  });

  it('lists every directory source kind where it says which there are', () => {
    const comments = commentsByPath(DEFAULTS);
    const kinds = settingsFor(CATALOG).find((s) => s.env === 'DIRECTORY_SOURCE')?.expected ?? '';
    expect(kinds).toMatch(/^none, /);
    expect(comments.get('directory.source')).toContain(kinds);
    expect(comments.get('directories')).toContain(kinds.replace(/^none, /, ''));
  });
});
