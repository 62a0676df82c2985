import { readFileSync, statSync } from 'node:fs';

export interface FileSecretOptions {
  /** How often the file's modification time is looked at, at most. */
  checkMs?: number;
  /** Why new contents cannot be used (undefined: they can). Refused contents keep the last value. */
  problem?: (value: string) => string | undefined;
  onRefused?: (problem: string) => void;
  /** Told each new value taken (e.g. so that logs scrub it too). */
  onChanged?: (value: string) => void;
}

/**
 * A secret mounted as a file (Kubernetes Secret volumes, *_FILE variables) that may be replaced
 * while the bridge runs: re-read when the file changes, checked at most every `checkMs`. A file that
 * cannot be read, or whose new contents are refused, keeps the last value.
 */
export function fileSecret(path: string, initial: string, options: FileSecretOptions = {}): () => string {
  const checkMs = options.checkMs ?? 1000;
  let value = initial;
  let checkedAt = Date.now();
  // Unknown at first: `initial` was read earlier (at start-up), and the file may have changed since,
  // so the first check reads it again.
  let seen: string | undefined;
  return () => {
    const now = Date.now();
    if (now - checkedAt < checkMs) return value;
    checkedAt = now;
    const current = fileVersion(path);
    if (current !== undefined && current !== seen) {
      seen = current;
      try {
        const next = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
        const problem = options.problem?.(next);
        if (problem !== undefined) options.onRefused?.(problem);
        else if (next !== value) {
          value = next;
          options.onChanged?.(next);
        }
      } catch {
        // keep the last value
      }
    }
    return value;
  };
}

/** What tells one version of the file from another: two writes within a clock tick share an mtime. */
function fileVersion(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return undefined;
  }
}
