import { readFileSync, statSync } from 'node:fs';

/**
 * A secret mounted as a file (Kubernetes Secret volumes, *_FILE variables) that may be replaced
 * while the bridge runs: re-read when the file changes, checked at most every `checkMs`. A file that
 * cannot be read keeps the last value.
 */
export function fileSecret(path: string, initial: string, checkMs = 1000): () => string {
  let value = initial;
  let checkedAt = Date.now();
  let mtime = safeMtime(path);
  return () => {
    const now = Date.now();
    if (now - checkedAt < checkMs) return value;
    checkedAt = now;
    const current = safeMtime(path);
    if (current !== undefined && current !== mtime) {
      mtime = current;
      try {
        value = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
      } catch {
        // keep the last value
      }
    }
    return value;
  };
}

function safeMtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}
