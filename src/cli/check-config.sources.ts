import type { Config } from '../config/schema.js';
import { directoryOwner } from '../domain/desired-change.js';
import { asBridgeError } from '../store/redis-errors.js';
import { buildDirectorySource, configuredDirectories, directoryKindOf } from '../sources/registry.js';
import type { SourceCheck } from '../sources/directory/directory-source.js';

/** How long check-config gives one directory's checks. */
const CHECK_MS = 20_000;

/**
 * What `check-config` says of each directory whose source can check itself (a cloud directory:
 * sign-in, then one cheap read per permission it needs — DirectorySource.check): one comment line
 * per check, in plain words, and whether all passed. A source refusing the credential makes the
 * configuration unusable as it stands: check-config then exits 1.
 */
export async function sourceLines(config: Config): Promise<{ lines: string[]; ok: boolean }> {
  const lines: string[] = [];
  let ok = true;
  for (const settings of configuredDirectories(config)) {
    const source = buildDirectorySource(settings);
    if (!source?.check) continue;
    const owner = `${directoryOwner(settings.name)} (${directoryKindOf(settings)?.title ?? settings.source})`;
    for (const check of await checksOf(source.check.bind(source))) {
      ok &&= check.ok;
      lines.push(`${owner}: ${check.what}: ${check.ok ? 'ok' : `failed — ${check.detail ?? 'no detail'}`}`);
    }
  }
  return { lines, ok };
}

async function checksOf(
  check: (options: { signal: AbortSignal }) => Promise<SourceCheck[]>,
): Promise<SourceCheck[]> {
  try {
    return await check({ signal: AbortSignal.timeout(CHECK_MS) });
  } catch (error) {
    return [{ what: 'reach', ok: false, detail: asBridgeError(error).message }];
  }
}
