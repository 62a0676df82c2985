import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collector: (() => void) | undefined | null;

/**
 * Runs a full garbage collection now, where it matters for the process's peak memory: between the
 * phases of a full reconciliation, each of which leaves tens of megabytes of garbage for 100,000
 * identities that V8 would otherwise let pile up (RSS only ever grows). The collector is obtained
 * without a command-line flag; when it cannot be, this does nothing.
 */
export function collectGarbage(): void {
  if (collector === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collector = runInNewContext('gc') as () => void;
    } catch {
      collector = null;
    }
  }
  collector?.();
}
