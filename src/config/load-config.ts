import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { configError, isBridgeError } from '../domain/errors.js';
import type { SettingsCatalog } from './catalog.js';
import { configSchemaFor, type Config } from './schema.js';
import { settingForPath, settingsFor, type Setting } from './settings.js';
import { readSecretFiles, secretFileKey } from './secret-files.js';

export type Env = Readonly<Record<string, string | undefined>>;
export type ReadFile = (path: string) => string;

export interface LoadOptions {
  /** Reads CONFIG_FILE, *_FILE secrets and the defaults; tests pass their own. */
  readFile?: ReadFile;
  defaultsPath?: string;
}

const DEFAULTS_PATH = new URL('../../config/default.yaml', import.meta.url).pathname;

type Tree = Record<string, unknown>;

/**
 * Builds the configuration from config/default.yaml, the optional CONFIG_FILE and the environment
 * (later wins), for the input kinds of `catalog` (src/sources/registry.ts). A secret given as a
 * file — `X_FILE`, or `<key>File` in the config file — is read here, and its path kept beside it
 * (`<key>File`) so that the input re-reads it when it changes. Deterministic for a given env and
 * files; throws a `config_invalid` BridgeError listing every problem.
 */
export function loadConfig(env: Env, catalog: SettingsCatalog, options: LoadOptions = {}): Config {
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const problems: string[] = [];
  const settings = settingsFor(catalog);
  const tree = parseYamlTree(readFile(options.defaultsPath ?? DEFAULTS_PATH), 'config/default.yaml');
  const fileName = env.CONFIG_FILE;
  if (fileName) {
    const override = readConfigFile(fileName, readFile, problems);
    if (override) {
      checkKnownKeys(override, tree, [], problems);
      mergeInto(tree, override);
    }
  }
  applyEnv(tree, env, settings, readFile, problems);
  readSecretFiles(tree, catalog, readFile, problems);
  const parsed = schemaFor(catalog).safeParse(tree);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const rule = 'params' in issue && (issue.params as { rule?: boolean } | undefined)?.rule === true;
      problems.push(describeIssue(settings, issue.path, issue.message, rule ? {} : tree));
    }
  }
  if (problems.length > 0 || !parsed.success) throw configError(problems);
  const config = parsed.data;
  config.redis.keyPrefix = hashTagged(config.redis.keyPrefix);
  return deepFreeze(config) as unknown as Config;
}

const schemas = new WeakMap<SettingsCatalog, ReturnType<typeof configSchemaFor>>();

function schemaFor(catalog: SettingsCatalog): ReturnType<typeof configSchemaFor> {
  const known = schemas.get(catalog);
  if (known) return known;
  const schema = configSchemaFor(catalog);
  schemas.set(catalog, schema);
  return schema;
}

/** Redis Cluster puts keys sharing the first {tag} in one slot; a prefix without one gets braces. */
export function hashTagged(prefix: string): string {
  return /\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`;
}

function parseYamlTree(text: string, name: string): Tree {
  const value: unknown = parseYaml(text);
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw configError([`${name}: not a YAML mapping`]);
  return value as Tree;
}

function readConfigFile(fileName: string, readFile: ReadFile, problems: string[]): Tree | undefined {
  let text: string;
  try {
    text = readFile(fileName);
  } catch (error) {
    problems.push(
      `CONFIG_FILE: cannot read ${fileName} (${errorCode(error)}) — expected the path of a YAML file`,
    );
    return undefined;
  }
  try {
    return parseYamlTree(text, `CONFIG_FILE ${fileName}`);
  } catch (error) {
    const reason = isBridgeError(error, 'config_invalid') ? 'not a YAML mapping' : 'not valid YAML';
    problems.push(`CONFIG_FILE: ${fileName} is ${reason} — expected YAML shaped like config/default.yaml`);
    return undefined;
  }
}

function checkKnownKeys(override: Tree, defaults: Tree, path: string[], problems: string[]): void {
  for (const [key, value] of Object.entries(override)) {
    const known = defaults[key];
    const here = [...path, key];
    if (known === undefined && !(typeof value === 'string' && secretFileKey(key, defaults))) {
      problems.push(
        `CONFIG_FILE: ${here.join('.')} is not a setting — see config/default.yaml for the settings`,
      );
    } else if (isTree(known) && Object.keys(known).length > 0 && isTree(value)) {
      checkKnownKeys(value, known, here, problems);
    }
  }
}

function mergeInto(target: Tree, source: Tree): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isTree(existing) && isTree(value) && Object.keys(existing).length > 0) mergeInto(existing, value);
    else target[key] = value;
  }
}

function applyEnv(
  tree: Tree,
  env: Env,
  settings: readonly Setting[],
  readFile: ReadFile,
  problems: string[],
): void {
  for (const setting of settings) {
    const raw = readEnvValue(setting, env, readFile, problems);
    if (raw === undefined) continue;
    const converted = convert(setting, raw);
    if ('problem' in converted) {
      const shown = setting.secret ? '' : `${JSON.stringify(raw)} `;
      problems.push(`${setting.env}: ${shown}is ${converted.problem} — expected ${setting.expected}`);
      continue;
    }
    setPath(tree, setting.path, converted.value);
    const file = setting.secret ? env[`${setting.env}_FILE`] : undefined;
    if (file) setPath(tree, [...setting.path.slice(0, -1), `${setting.path.at(-1) ?? ''}File`], file);
  }
}

function readEnvValue(
  setting: Setting,
  env: Env,
  readFile: ReadFile,
  problems: string[],
): string | undefined {
  const direct = env[setting.env];
  const fileVar = `${setting.env}_FILE`;
  const filePath = setting.secret ? env[fileVar] : undefined;
  if (filePath === undefined || filePath === '') return direct;
  if (direct !== undefined && direct !== '') {
    problems.push(`${setting.env}: set both ${setting.env} and ${fileVar} — expected only one of them`);
    return direct;
  }
  try {
    return readFile(filePath).replace(/\r?\n$/, '');
  } catch (error) {
    problems.push(
      `${fileVar}: cannot read ${filePath} (${errorCode(error)}) — expected a readable file holding the secret`,
    );
    return undefined;
  }
}

function convert(setting: Setting, raw: string): { value: unknown } | { problem: string } {
  const text = raw.trim();
  switch (setting.kind) {
    case 'integer':
      return /^-?\d+$/.test(text) ? { value: Number(text) } : { problem: 'not a whole number' };
    case 'boolean':
      if (/^(true|1|yes|on)$/i.test(text)) return { value: true };
      if (/^(false|0|no|off)$/i.test(text)) return { value: false };
      return { problem: 'not true or false' };
    case 'list':
      return { value: text === '' ? [] : text.split(',').map((x) => x.trim()) };
    case 'string':
      return { value: setting.secret ? raw : text };
  }
}

function describeIssue(
  settings: readonly Setting[],
  path: readonly PropertyKey[],
  message: string,
  tree: Tree,
): string {
  const keys = path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  const setting = settingForPath(settings, keys);
  const name = setting ? setting.env : keys.join('.');
  const expected = setting ? ` — expected ${setting.expected}` : '';
  if (message === 'required' || message.startsWith('required ')) return `${name}: ${message}${expected}`;
  const value = getPath(tree, keys);
  const shown = setting?.secret || value === undefined ? '' : `${JSON.stringify(value)} is `;
  return `${name}: ${shown}${message}${expected}`;
}

export function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!isTree(next)) node[key] = {};
    node = node[key] as Tree;
  }
  node[path[path.length - 1] as string] = value;
}

function getPath(tree: Tree, path: readonly (string | number)[]): unknown {
  let node: unknown = tree;
  for (const key of path) node = isTree(node) || Array.isArray(node) ? (node as Tree)[key] : undefined;
  return node;
}

export function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unreadable';
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
