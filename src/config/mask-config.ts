import { secretKeys, type SettingsCatalog } from './catalog.js';
import { secretLines } from './secret-lines.js';
import { formatDeprovisionLimit, type Config } from './schema.js';
import { SECRET_PATHS } from './settings.js';

/** Paths of every secret of a configuration: the bridge's own, each input's, each directory's source's. */
export function secretPathsOf(config: Config, catalog: SettingsCatalog): string[] {
  const inSection = (prefix: string, section: SettingsCatalog['inputs'][number]) =>
    secretKeys(section).map((key) => `${prefix}${section.key}.${key}`);
  const sources = (prefix: string, source: string | undefined) =>
    catalog.directorySources
      .filter((section) => source === undefined || section.key === source)
      .flatMap((section) => inSection(prefix, section));
  return [
    ...SECRET_PATHS,
    ...catalog.inputs.flatMap((section) => inSection('', section)),
    ...sources('directory.', undefined),
    ...config.directories.flatMap((d, i) => sources(`directories.${i}.`, d.source)),
  ];
}

export const MASK = '********';

/**
 * A copy of the configuration fit for printing: secrets become a mask, URL passwords too, and the
 * limits read as they are configured (`500,20%`, `30%`).
 */
export function maskConfig(config: Config, catalog: SettingsCatalog): unknown {
  const copy = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  copy.reconcile = {
    ...copy.reconcile,
    deprovisionLimit: formatDeprovisionLimit(config.reconcile.deprovisionLimit),
    sourceShrinkLimit: `${config.reconcile.sourceShrinkLimit}%`,
  };
  for (const path of secretPathsOf(config, catalog)) {
    const keys = path.split('.');
    const last = keys.pop() as string;
    let node: Record<string, unknown> | undefined = copy;
    for (const key of keys) node = node?.[key] as Record<string, unknown> | undefined;
    if (!node || typeof node[last] !== 'string' || node[last] === '') continue;
    node[last] = path.endsWith('.url') ? maskUrlPassword(node[last]) : MASK;
  }
  return copy;
}

/** Hides the password (and a lone username used as a password) of a URL. */
export function maskUrlPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = MASK;
    else if (url.username) url.username = MASK;
    return url.toString();
  } catch {
    return MASK;
  }
}

/** Every secret value in the configuration (and the Redis URL's password), for log scrubbing. */
export function secretValues(config: Config, catalog: SettingsCatalog): string[] {
  const values: string[] = [];
  for (const path of secretPathsOf(config, catalog)) {
    let node: unknown = config;
    for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
    if (typeof node !== 'string' || node === '') continue;
    if (path.endsWith('.url')) {
      try {
        const url = new URL(node);
        if (url.password) values.push(decodeURIComponent(url.password), url.password);
        else if (url.username) values.push(decodeURIComponent(url.username), url.username);
      } catch {
        values.push(node);
      }
    } else values.push(node, ...secretLines(node));
  }
  return values;
}
