import { secretKeys, type SectionSettings, type SettingsCatalog } from './catalog.js';

type Tree = Record<string, unknown>;
type ReadFile = (path: string) => string;

/**
 * The inputs' secrets given as files in the configuration (SPEC §3: every secret has a `*_FILE`
 * form): `<key>File` beside the secret's key — the form the further `directories` take, which have
 * no variables — or a `*_FILE` variable, which loadConfig records the same way. The file is read
 * into the secret, and its path stays so that the input re-reads it when it changes (a rotated
 * password without a restart).
 */
export function readSecretFiles(
  tree: Tree,
  catalog: SettingsCatalog,
  readFile: ReadFile,
  problems: string[],
): void {
  for (const section of catalog.inputs) readSection(tree, [section.key], section, readFile, problems);
  const directories = [tree.directory, ...(Array.isArray(tree.directories) ? tree.directories : [])];
  directories.forEach((directory, i) => {
    if (!isTree(directory)) return;
    const path = i === 0 ? ['directory'] : ['directories', String(i - 1)];
    for (const source of catalog.directorySources)
      readSection(directory, [...path, source.key], source, readFile, problems, source.key);
  });
}

function readSection(
  parent: Tree,
  path: readonly string[],
  section: SectionSettings,
  readFile: ReadFile,
  problems: string[],
  key = section.key,
): void {
  const node = parent[key];
  if (!isTree(node)) return;
  const secrets = new Set(secretKeys(section));
  for (const [name, file] of Object.entries(node)) {
    const stem = name.endsWith('File') ? name.slice(0, -'File'.length) : undefined;
    if (stem === undefined || !secrets.has(stem) || typeof file !== 'string' || file === '') continue;
    const where = [...path, name].join('.');
    try {
      node[stem] = readFile(file).replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(
        `${where}: cannot read ${file} (${codeOf(error)}) — expected a readable file holding the secret`,
      );
    }
  }
}

/** Whether a config file's key is the file form of a setting (`bindPasswordFile` beside `bindPassword`). */
export function secretFileKey(key: string, siblings: Tree): boolean {
  return key.endsWith('File') && key.slice(0, -'File'.length) in siblings;
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unreadable';
}
